package dev.jooqoutbox.console;

import dev.jooqoutbox.OutboxAdmin;
import dev.jooqoutbox.testing.TestDatabase;
import java.nio.file.Files;
import java.time.Duration;
import org.apache.catalina.Context;
import org.apache.catalina.startup.Tomcat;

/**
 * The same browser test with the page served as Spring Boot serves it: {@link OutboxConsoleServlet}
 * in Tomcat (10.1, Boot 3.5's) under {@code /actuator/outbox-console/*}, opened at the path without
 * its slash. What the container adds (the application's security) is the samples' test; this one
 * shows that the page, its files, reads and actions work under a path in a browser. One database:
 * the page's queries are those of the other three subclasses.
 */
class PostgresServletConsoleBrowserTest extends ConsoleBrowserContract {

  private static final String PATH = "/actuator/outbox-console";

  private Tomcat tomcat;

  PostgresServletConsoleBrowserTest() {
    super(TestDatabase.Kind.POSTGRES);
  }

  @Override
  String serve(OutboxAdmin admin) throws Exception {
    tomcat = new Tomcat();
    tomcat.setBaseDir(Files.createTempDirectory("console-tomcat").toString());
    tomcat.setHostname("127.0.0.1");
    tomcat.setPort(0);
    tomcat.getConnector().setProperty("address", "127.0.0.1");
    Context context = tomcat.addContext("", null);
    Tomcat.addServlet(
        context, "console", new OutboxConsoleServlet(admin, true, false, Duration.ofSeconds(15)));
    context.addServletMappingDecoded(PATH + "/*", "console");
    tomcat.start();
    return "http://127.0.0.1:" + tomcat.getConnector().getLocalPort() + PATH;
  }

  @Override
  String base() {
    return "http://127.0.0.1:" + tomcat.getConnector().getLocalPort() + PATH + "/";
  }

  @Override
  void stopServing() throws Exception {
    if (tomcat != null) {
      tomcat.stop();
      tomcat.destroy();
    }
  }

  @Override
  String shotSuffix() {
    return "-servlet";
  }
}
