package dev.jooqoutbox.testing;

import dev.jooqoutbox.testing.TestDatabase.Kind;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * Decides which PostgreSQL or MariaDB server the tests use, in this order:
 *
 * <ol>
 *   <li>the server named by {@code OUTBOX_TEST_POSTGRES_URL} / {@code OUTBOX_TEST_MARIADB_URL}. It
 *       must answer: a server someone named is never silently replaced by another;
 *   <li>a server answering on the default port (5432, 3306 on 127.0.0.1) with the documented user
 *       and database ({@code postgres} / {@code root}, no password, database {@code test});
 *   <li>a real server started from Maven artifacts (the {@code embedded} starters).
 * </ol>
 *
 * <p>{@code OUTBOX_TEST_EMBEDDED=always} goes straight to step 3; {@code =never} stops after step
 * 2. When nothing works, the error lists every step and why it failed. The system properties {@code
 * outbox.test.postgres.port} and {@code outbox.test.mariadb.port} move the default port: they exist
 * to test step 3 on a machine whose default ports answer.
 */
final class ServerResolver {

  static final String MODE_ENV = "OUTBOX_TEST_EMBEDDED";

  private final UnaryOperator<String> env;
  private final UnaryOperator<String> properties;
  private final Map<Kind, Supplier<TestServer>> embedded;

  /**
   * @param env reads an environment variable ({@code System::getenv})
   * @param properties reads a system property ({@code System::getProperty})
   * @param embedded starts the embedded server of a dialect, or throws saying why it cannot
   */
  ServerResolver(
      UnaryOperator<String> env,
      UnaryOperator<String> properties,
      Map<Kind, Supplier<TestServer>> embedded) {
    this.env = env;
    this.properties = properties;
    this.embedded = Map.copyOf(embedded);
  }

  /** What the resolver knows about the server of one dialect. */
  private record Spec(
      String product,
      String envName,
      String portProperty,
      int defaultPort,
      String urlFormat,
      String probeTimeouts) {}

  private static Spec spec(Kind kind) {
    return switch (kind) {
      case POSTGRES ->
          new Spec(
              "PostgreSQL",
              "OUTBOX_TEST_POSTGRES_URL",
              "outbox.test.postgres.port",
              5432,
              "jdbc:postgresql://127.0.0.1:%d/test?user=postgres",
              "connectTimeout=3&socketTimeout=10");
      case MARIADB ->
          new Spec(
              "MariaDB",
              "OUTBOX_TEST_MARIADB_URL",
              "outbox.test.mariadb.port",
              3306,
              "jdbc:mariadb://127.0.0.1:%d/test?user=root",
              "connectTimeout=3000&socketTimeout=10000");
      case SQLITE ->
          throw new IllegalArgumentException("SQLite has no server: its databases are files");
    };
  }

  private enum Mode {
    AUTO,
    ALWAYS,
    NEVER
  }

  /** The server for {@code kind}; an {@link IllegalStateException} says what was tried. */
  TestServer resolve(Kind kind) {
    Spec spec = spec(kind);
    Mode mode = mode();
    List<String> tried = new ArrayList<>();
    if (mode == Mode.ALWAYS) {
      tried.add(MODE_ENV + "=always: skipped " + spec.envName() + " and the default port");
    } else {
      String named = env.apply(spec.envName());
      if (named != null && !named.isBlank()) {
        try {
          return probe(spec, named, "(" + spec.envName() + ")");
        } catch (SQLException e) {
          throw new IllegalStateException(
              spec.envName()
                  + "="
                  + named
                  + " does not answer: "
                  + withoutFinalPeriod(e.getMessage())
                  + ". Start that server, correct the variable, or unset it to use the default port"
                  + " or an embedded server (README, \"Running the tests\").",
              e);
        }
      }
      tried.add(spec.envName() + " is not set");
      String defaultUrl = String.format(Locale.ROOT, spec.urlFormat(), defaultPort(spec));
      try {
        return probe(spec, defaultUrl, "(default port)");
      } catch (SQLException e) {
        tried.add(defaultUrl + ": " + e.getMessage());
      }
      if (mode == Mode.NEVER) {
        tried.add(MODE_ENV + "=never: no embedded server started");
        throw noServer(spec, tried, null);
      }
    }
    try {
      return embedded.get(kind).get();
    } catch (RuntimeException e) {
      tried.add("embedded " + spec.product() + ": " + e.getMessage());
      throw noServer(spec, tried, e);
    }
  }

  private TestServer probe(Spec spec, String url, String origin) throws SQLException {
    String version = ServerProbe.version(url, spec.probeTimeouts());
    return new TestServer(
        spec.product(), version, url, "on " + TestServer.address(url) + " " + origin);
  }

  private int defaultPort(Spec spec) {
    String port = properties.apply(spec.portProperty());
    if (port == null || port.isBlank()) {
      return spec.defaultPort();
    }
    try {
      return Integer.parseInt(port.strip());
    } catch (NumberFormatException e) {
      throw new IllegalStateException(spec.portProperty() + " is not a port: " + port, e);
    }
  }

  private Mode mode() {
    String value = env.apply(MODE_ENV);
    if (value == null || value.isBlank()) {
      return Mode.AUTO;
    }
    try {
      return Mode.valueOf(value.strip().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(
          MODE_ENV + " must be always, never or auto (the default), not '" + value + "'", e);
    }
  }

  private static String withoutFinalPeriod(String message) {
    String m = String.valueOf(message).strip();
    return m.endsWith(".") ? m.substring(0, m.length() - 1) : m;
  }

  private static IllegalStateException noServer(Spec spec, List<String> tried, Exception cause) {
    StringBuilder message = new StringBuilder("No " + spec.product() + " server for the tests.");
    for (int i = 0; i < tried.size(); i++) {
      message.append(" (").append(i + 1).append(") ").append(withoutFinalPeriod(tried.get(i)));
      message.append('.');
    }
    message
        .append(" Set ")
        .append(spec.envName())
        .append(" to a server with the users and rights of README, \"Running the tests\".");
    return new IllegalStateException(message.toString(), cause);
  }
}
