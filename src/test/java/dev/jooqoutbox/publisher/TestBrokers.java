package dev.jooqoutbox.publisher;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * Whether a broker the tests need answers. Where it does not, the test is skipped, unless the
 * environment says {@code OUTBOX_TEST_BROKERS=required} (as CI does, having started the brokers):
 * then it fails, so that a broker that did not start cannot pass as skipped tests.
 */
public final class TestBrokers {

  public static final String HOST = "127.0.0.1";
  public static final int RABBITMQ_PORT = 5672;
  public static final int NATS_PORT = 4222;

  private TestBrokers() {}

  public static void assumeRabbitMq() {
    assumeReachable("RabbitMQ (start it with: rabbitmq-server -detached)", RABBITMQ_PORT);
  }

  public static void assumeNats() {
    assumeReachable(
        "NATS (start it with: nats-server -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server)",
        NATS_PORT);
  }

  /** The URL of the NATS server the tests use. */
  public static String natsUrl(int port) {
    return "nats://" + HOST + ":" + port;
  }

  private static void assumeReachable(String broker, int port) {
    if (reachable(port)) {
      return;
    }
    String message = "no broker answers at " + HOST + ":" + port + ": " + broker;
    if ("required".equals(System.getenv("OUTBOX_TEST_BROKERS"))) {
      Assertions.fail(message + " and OUTBOX_TEST_BROKERS=required");
    }
    Assumptions.abort(message + "; set OUTBOX_TEST_BROKERS=required to fail instead");
  }

  private static boolean reachable(int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(HOST, port), 1000);
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
