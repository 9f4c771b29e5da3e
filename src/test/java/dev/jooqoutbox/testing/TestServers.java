package dev.jooqoutbox.testing;

import dev.jooqoutbox.testing.TestDatabase.Kind;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.EnumMap;
import java.util.Map;

/**
 * The server of each dialect for this test JVM: found (or started) on first use, at most once, and
 * announced once on the console, e.g. {@code jooq-outbox tests: PostgreSQL 15.14 on 127.0.0.1:5432
 * (default port)}. A dialect whose server could not be found fails every later use with the same
 * message, without trying again.
 */
final class TestServers {

  private static final ServerResolver RESOLVER =
      new ServerResolver(
          System::getenv,
          System::getProperty,
          Map.of(
              Kind.POSTGRES, EmbeddedPostgresServer::start,
              Kind.MARIADB, EmbeddedMariaDbServer::start));

  private static final Map<Kind, TestServer> SERVERS = new EnumMap<>(Kind.class);
  private static final Map<Kind, IllegalStateException> FAILURES = new EnumMap<>(Kind.class);

  /*
   * Surefire writes System.out and System.err of the tests to report files
   * (redirectTestOutputToFile), but copies what the test JVM writes to its native stderr onto the
   * console of mvn: the banner goes there so that a plain `mvn verify` shows it.
   */
  private static final PrintStream CONSOLE =
      new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8);

  private TestServers() {}

  /** The server the tests of {@code kind} use in this JVM. */
  static synchronized TestServer of(Kind kind) {
    TestServer server = SERVERS.get(kind);
    if (server != null) {
      return server;
    }
    IllegalStateException failure = FAILURES.get(kind);
    if (failure != null) {
      throw new IllegalStateException(failure.getMessage(), failure);
    }
    try {
      server = kind == Kind.SQLITE ? sqlite() : RESOLVER.resolve(kind);
    } catch (IllegalStateException e) {
      FAILURES.put(kind, e);
      CONSOLE.println("jooq-outbox tests: " + e.getMessage());
      throw e;
    }
    SERVERS.put(kind, server);
    CONSOLE.println("jooq-outbox tests: " + server.describe());
    return server;
  }

  private static TestServer sqlite() {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite::memory:")) {
      String version = c.getMetaData().getDatabaseProductVersion();
      return new TestServer("SQLite", version, "jdbc:sqlite:", "(sqlite-jdbc, temp files)");
    } catch (SQLException e) {
      throw new IllegalStateException("sqlite-jdbc cannot open a database: " + e.getMessage(), e);
    }
  }
}
