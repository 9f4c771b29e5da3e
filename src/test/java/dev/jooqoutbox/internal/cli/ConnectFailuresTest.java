package dev.jooqoutbox.internal.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.sql.SQLException;
import java.sql.SQLInvalidAuthorizationSpecException;
import java.sql.SQLTimeoutException;
import org.junit.jupiter.api.Test;

/** {@link ConnectFailures}: the cause is told by type and SQLSTATE, whatever the driver says. */
class ConnectFailuresTest {

  /** As Hikari wraps it: a RuntimeException around the driver's SQLException around the cause. */
  private static RuntimeException failure(Throwable cause) {
    return new RuntimeException(
        "Failed to initialize pool", new SQLException("The connection attempt failed.", cause));
  }

  @Test
  void namesTheCauseFoundAnywhereInTheChain() {
    assertThat(ConnectFailures.describe(failure(new UnknownHostException("db.example"))))
        .isEqualTo("unknown host (db.example): The connection attempt failed.");
    assertThat(ConnectFailures.describe(failure(new ConnectException("Connection refused"))))
        .isEqualTo("connection refused: The connection attempt failed.");
    assertThat(ConnectFailures.describe(failure(new SocketTimeoutException("Read timed out"))))
        .isEqualTo("timed out: The connection attempt failed.");
  }

  @Test
  void namesATimeoutOrAnAuthenticationFailureReportedAsSqlExceptions() {
    assertThat(
            ConnectFailures.describe(
                new RuntimeException(new SQLTimeoutException("login took too long"))))
        .isEqualTo("timed out: login took too long");
    assertThat(
            ConnectFailures.describe(
                new RuntimeException(new SQLInvalidAuthorizationSpecException("denied", "28000"))))
        .isEqualTo("authentication failed: denied");
    // PostgreSQL's wrong password: a plain SQLException of SQLSTATE class 28.
    assertThat(
            ConnectFailures.describe(
                new RuntimeException(new SQLException("password authentication failed", "28P01"))))
        .isEqualTo("authentication failed: password authentication failed");
  }

  @Test
  void anUnknownCauseIsTheDriversOwnWords() {
    assertThat(ConnectFailures.describe(failure(new IllegalStateException("odd"))))
        .isEqualTo("The connection attempt failed.");
    assertThat(
            ConnectFailures.describe(
                new RuntimeException(new SQLException("database \"x\" does not exist", "3D000"))))
        .isEqualTo("database \"x\" does not exist");
  }
}
