package dev.jooqoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jooqoutbox.testing.TestDatabase;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

/**
 * A database server that cannot be reached says why, named from the driver's exception types (the
 * PostgreSQL driver says "The connection attempt failed." for most of them). Server dialects only:
 * SQLite has no host, port or password.
 */
abstract class CliConnectFailuresContract {

  private final TestDatabase.Kind kind;

  CliConnectFailuresContract(TestDatabase.Kind kind) {
    this.kind = kind;
  }

  /** A URL of this dialect to {@code hostAndPort}, database {@code test}, with {@code params}. */
  abstract String url(String hostAndPort, String params);

  /** The parameter that makes the driver give up reading after about one second. */
  abstract String oneSecondSocketTimeout();

  private static void assertCannotConnect(CliResult r, String url, String cause) {
    assertThat(r.exitCode()).as(r.toString()).isEqualTo(1);
    assertThat(r.out()).isEmpty();
    assertThat(r.err()).as(r.toString()).startsWith("outbox status: cannot connect to " + url);
    assertThat(r.err()).as(r.toString()).contains(": " + cause);
    assertThat(r.err().lines()).hasSize(1);
  }

  @Test
  void anUnknownHostIsNamedWithTheHost() {
    String url = url("no-such-host.invalid:5432", "");
    assertCannotConnect(
        CliResult.run("status", "--db", url), url, "unknown host (no-such-host.invalid");
  }

  @Test
  void aClosedPortIsAConnectionRefused() {
    String url = url("127.0.0.1:1", "");
    assertCannotConnect(CliResult.run("status", "--db", url), url, "connection refused: ");
  }

  @Test
  void aServerThatNeverAnswersIsATimeout() throws IOException {
    // Accepts connections (the kernel does, into the backlog) and never says a word.
    try (ServerSocket silent = new ServerSocket(0, 10, InetAddress.getLoopbackAddress())) {
      String url = url("127.0.0.1:" + silent.getLocalPort(), oneSecondSocketTimeout());
      assertCannotConnect(CliResult.run("status", "--db", url), url, "timed out: ");
    }
  }

  @Test
  void anUnknownUserIsAnAuthenticationFailure() {
    String server = kind.serverUrl();
    String hostAndPort = server.replaceFirst("^jdbc:[a-z]+://([^/?]+).*$", "$1");
    String url = url(hostAndPort, "user=no_such_user&password=wrong");
    assertCannotConnect(
        CliResult.run("status", "--db", url),
        url.replace("password=wrong", "password=***"),
        "authentication failed: ");
  }
}
