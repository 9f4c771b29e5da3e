package dev.jooqoutbox.spring.console;

import dev.jooqoutbox.OutboxAdmin;
import dev.jooqoutbox.console.OutboxConsoleServlet;
import dev.jooqoutbox.spring.OutboxProperties;
import jakarta.servlet.http.HttpServlet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextConfiguration;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextType;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * The operator console on the management server (the application's own port, or {@code
 * management.server.port} when set), at the Actuator's base path + {@code /outbox-console}: only
 * when {@code jooq-outbox.console.enabled=true}, in a servlet web application. It has no token of
 * its own; the application's security guards it like any other path. Actions stay off unless {@code
 * jooq-outbox.console.actions=true}.
 *
 * <p>A management-context configuration, not an auto-configuration: Boot creates it in the context
 * that serves the Actuator, which is a child context of its own when the management port differs.
 * {@code ServletRegistrationBean} and this annotation have the same names on Boot 3.5 and 4.0.
 */
@ManagementContextConfiguration(value = ManagementContextType.ANY, proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({HttpServlet.class, ServletRegistrationBean.class})
@ConditionalOnProperty(prefix = "jooq-outbox.console", name = "enabled", havingValue = "true")
public class OutboxConsoleConfiguration {

  private static final Logger log = LoggerFactory.getLogger(OutboxConsoleConfiguration.class);

  /** The console's path below the Actuator's base path. */
  static final String PATH = "/outbox-console";

  @Bean
  ServletRegistrationBean<OutboxConsoleServlet> outboxConsoleServlet(
      OutboxAdmin admin, OutboxProperties properties, Environment environment) {
    OutboxProperties.Console console = properties.getConsole();
    OutboxConsoleServlet servlet;
    try {
      servlet =
          new OutboxConsoleServlet(
              admin, console.isActions(), console.isShowPayloads(), console.getSampleEvery());
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException("jooq-outbox.console.sample-every: " + e.getMessage());
    }
    String path = basePath(environment) + PATH;
    ServletRegistrationBean<OutboxConsoleServlet> registration =
        new ServletRegistrationBean<>(servlet, path + "/*");
    registration.setName("outboxConsole");
    log.info(
        "outbox console at {}/ on the management server (actions {}, payloads {}): protect it as"
            + " the application protects its other operator endpoints",
        path,
        console.isActions() ? "on" : "off",
        console.isShowPayloads() ? "shown" : "hidden");
    return registration;
  }

  /** The Actuator's base path as Boot reads it, without a trailing slash ("" for "/"). */
  static String basePath(Environment environment) {
    String base = environment.getProperty("management.endpoints.web.base-path", "/actuator");
    base = base.startsWith("/") ? base : "/" + base;
    return base.endsWith("/") ? base.substring(0, base.length() - 1) : base;
  }
}
