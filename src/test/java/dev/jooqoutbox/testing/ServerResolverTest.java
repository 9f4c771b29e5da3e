package dev.jooqoutbox.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.jooqoutbox.testing.TestDatabase.Kind;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The order in which the tests find their PostgreSQL and MariaDB servers (README, "Running the
 * tests"). Every case runs against this JVM's real server; the embedded starter is the real server
 * too, counted, so the cases say whether the resolver asked for it. The embedded servers themselves
 * are exercised by the CI step that runs a subset with OUTBOX_TEST_EMBEDDED=always.
 */
class ServerResolverTest {

  private final Map<String, String> env = new HashMap<>();
  private final Map<String, String> properties = new HashMap<>();
  private final AtomicInteger embeddedStarts = new AtomicInteger();

  private ServerResolver resolver(Kind kind, Supplier<TestServer> embedded) {
    Supplier<TestServer> counted =
        () -> {
          embeddedStarts.incrementAndGet();
          return embedded.get();
        };
    return new ServerResolver(env::get, properties::get, Map.of(kind, counted));
  }

  private ServerResolver resolver(Kind kind) {
    return resolver(kind, () -> TestServers.of(kind));
  }

  @ParameterizedTest
  @EnumSource(names = {"POSTGRES", "MARIADB"})
  void aServerNamedByTheVariableIsUsedAndNamedInTheBanner(Kind kind) {
    String url = TestServers.of(kind).url();
    env.put(envName(kind), url);

    TestServer server = resolver(kind).resolve(kind);

    assertThat(server.url()).isEqualTo(url);
    assertThat(server.describe()).endsWith("(" + envName(kind) + ")");
    assertThat(embeddedStarts).hasValue(0);
  }

  @ParameterizedTest
  @EnumSource(names = {"POSTGRES", "MARIADB"})
  void aNamedServerThatDoesNotAnswerFailsInsteadOfBeingReplaced(Kind kind) throws IOException {
    String dead = defaultUrl(kind, deadPort());
    env.put(envName(kind), dead);

    assertThatThrownBy(() -> resolver(kind).resolve(kind))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith(envName(kind) + "=" + dead + " does not answer: ");
    assertThat(embeddedStarts).hasValue(0);
  }

  @ParameterizedTest
  @EnumSource(names = {"POSTGRES", "MARIADB"})
  void aServerOnTheDefaultPortIsUsedWhenNoVariableIsSet(Kind kind) {
    String url = TestServers.of(kind).url();
    int port = Integer.parseInt(TestServer.address(url).replaceAll(".*:", ""));
    assumeTrue(
        url.equals(defaultUrl(kind, port)),
        "this JVM's server has another user or database than the default: " + url);
    properties.put(portProperty(kind), Integer.toString(port));

    TestServer server = resolver(kind).resolve(kind);

    assertThat(server.url()).isEqualTo(url);
    assertThat(server.describe()).endsWith("on 127.0.0.1:" + port + " (default port)");
    assertThat(embeddedStarts).hasValue(0);
  }

  @ParameterizedTest
  @EnumSource(names = {"POSTGRES", "MARIADB"})
  void withNothingOnTheDefaultPortAnEmbeddedServerIsStarted(Kind kind) throws IOException {
    properties.put(portProperty(kind), Integer.toString(deadPort()));

    TestServer server = resolver(kind).resolve(kind);

    assertThat(server).isSameAs(TestServers.of(kind));
    assertThat(embeddedStarts).hasValue(1);
  }

  @ParameterizedTest
  @EnumSource(names = {"POSTGRES", "MARIADB"})
  void embeddedAlwaysSkipsTheNamedServerAndTheDefaultPort(Kind kind) {
    env.put(envName(kind), TestServers.of(kind).url());
    env.put("OUTBOX_TEST_EMBEDDED", "always");

    resolver(kind).resolve(kind);

    assertThat(embeddedStarts).hasValue(1);
  }

  @ParameterizedTest
  @EnumSource(names = {"POSTGRES", "MARIADB"})
  void embeddedNeverFailsListingWhatWasTried(Kind kind) throws IOException {
    int dead = deadPort();
    properties.put(portProperty(kind), Integer.toString(dead));
    env.put("OUTBOX_TEST_EMBEDDED", "never");

    assertThatThrownBy(() -> resolver(kind).resolve(kind))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("(1) " + envName(kind) + " is not set.")
        .hasMessageContaining("(2) " + defaultUrl(kind, dead) + ": ")
        .hasMessageContaining("(3) OUTBOX_TEST_EMBEDDED=never: no embedded server started.");
    assertThat(embeddedStarts).hasValue(0);
  }

  @ParameterizedTest
  @EnumSource(names = {"POSTGRES", "MARIADB"})
  void anEmbeddedServerThatCannotStartFailsListingEveryStep(Kind kind) throws IOException {
    int dead = deadPort();
    properties.put(portProperty(kind), Integer.toString(dead));
    ServerResolver resolver =
        resolver(
            kind,
            () -> {
              throw new IllegalStateException("no binaries for this CPU");
            });

    assertThatThrownBy(() -> resolver.resolve(kind))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("No " + product(kind) + " server for the tests.")
        .hasMessageContaining("(1) " + envName(kind) + " is not set.")
        .hasMessageContaining("(2) " + defaultUrl(kind, dead) + ": ")
        .hasMessageContaining("(3) embedded " + product(kind) + ": no binaries for this CPU.");
  }

  @ParameterizedTest
  @EnumSource(names = {"POSTGRES", "MARIADB"})
  void anUnknownEmbeddedModeIsRefused(Kind kind) {
    env.put("OUTBOX_TEST_EMBEDDED", "sometimes");

    assertThatThrownBy(() -> resolver(kind).resolve(kind))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "OUTBOX_TEST_EMBEDDED must be always, never or auto (the default), not 'sometimes'");
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void eachDialectHasOneServerPerJvm(Kind kind) {
    assertThat(TestServers.of(kind)).isSameAs(TestServers.of(kind));
  }

  private static String envName(Kind kind) {
    return kind == Kind.POSTGRES ? "OUTBOX_TEST_POSTGRES_URL" : "OUTBOX_TEST_MARIADB_URL";
  }

  private static String portProperty(Kind kind) {
    return kind == Kind.POSTGRES ? "outbox.test.postgres.port" : "outbox.test.mariadb.port";
  }

  private static String product(Kind kind) {
    return kind == Kind.POSTGRES ? "PostgreSQL" : "MariaDB";
  }

  private static String defaultUrl(Kind kind, int port) {
    return kind == Kind.POSTGRES
        ? "jdbc:postgresql://127.0.0.1:" + port + "/test?user=postgres"
        : "jdbc:mariadb://127.0.0.1:" + port + "/test?user=root";
  }

  /** A loopback port nothing listens on: the system's pick, released again. */
  private static int deadPort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
