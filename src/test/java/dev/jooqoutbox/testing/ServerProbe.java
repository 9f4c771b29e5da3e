package dev.jooqoutbox.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

/**
 * Asks a server whether the tests can use it: a connection with the URL's user and database, with
 * short timeouts, so a port that nothing answers on costs a moment and not a test run.
 */
final class ServerProbe {

  private ServerProbe() {}

  /**
   * The version the server at {@code url} reports.
   *
   * @param timeouts the driver's timeout parameters, appended to the URL for this probe only
   * @throws SQLException with the driver's reason when it cannot connect
   */
  static String version(String url, String timeouts) throws SQLException {
    String probeUrl = url + (url.contains("?") ? "&" : "?") + timeouts;
    try (Connection c = DriverManager.getConnection(probeUrl)) {
      return TestServer.shortVersion(c.getMetaData().getDatabaseProductVersion());
    }
  }
}
