package dev.jooqoutbox.internal.cli;

import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.sql.SQLException;
import java.sql.SQLInvalidAuthorizationSpecException;
import java.sql.SQLTimeoutException;

/**
 * Why a connection could not be opened, in the words an operator acts on: unknown host, connection
 * refused, timed out, authentication failed. Told from the types in the exception's cause chain
 * (and the SQLSTATE class 28, invalid authorization), never from a driver's message, which says
 * "The connection attempt failed." for most of them.
 */
public final class ConnectFailures {

  private ConnectFailures() {}

  /**
   * The named cause, then the driver's own words ({@link JdbcUrls#reason}); only the driver's words
   * when the chain holds none of the known causes. An unknown host also names the host, which the
   * driver's words may not.
   */
  public static String describe(Throwable failure) {
    String words = JdbcUrls.reason(failure);
    for (Throwable t = failure; t != null; t = t.getCause()) {
      String cause = named(t);
      if (cause != null) {
        return cause + ": " + words;
      }
    }
    return words;
  }

  private static String named(Throwable t) {
    if (t instanceof UnknownHostException) {
      // The JDK's message is the host name (with the resolver's reason on some platforms).
      return t.getMessage() == null ? "unknown host" : "unknown host (" + t.getMessage() + ")";
    }
    if (t instanceof ConnectException) {
      return "connection refused";
    }
    if (t instanceof SocketTimeoutException || t instanceof SQLTimeoutException) {
      return "timed out";
    }
    if (t instanceof SQLInvalidAuthorizationSpecException
        || (t instanceof SQLException sql
            && sql.getSQLState() != null
            && sql.getSQLState().startsWith("28"))) {
      return "authentication failed";
    }
    return null;
  }
}
