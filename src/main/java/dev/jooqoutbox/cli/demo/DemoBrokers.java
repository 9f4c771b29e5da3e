package dev.jooqoutbox.cli.demo;

import java.net.URI;
import java.util.Locale;

/**
 * Opens the broker {@code --publish} names, after checking that its client is on the class path:
 * the CLI jar does not include the broker clients, so without the jar the demo stops with the jar's
 * name instead of a {@code NoClassDefFoundError}.
 */
final class DemoBrokers {

  /** The brokers {@code --publish} accepts. */
  enum Kind {
    RABBITMQ(
        "RabbitMQ",
        "amqp://guest:guest@127.0.0.1:5672",
        "com.rabbitmq.client.ConnectionFactory",
        "com.rabbitmq:amqp-client 5.x (amqp-client-5.37.1.jar)"),
    KAFKA(
        "Kafka",
        "127.0.0.1:9092",
        "org.apache.kafka.clients.producer.KafkaProducer",
        "org.apache.kafka:kafka-clients (kafka-clients-4.3.1.jar)"),
    NATS(
        "NATS JetStream",
        "nats://127.0.0.1:4222",
        "io.nats.client.Nats",
        "io.nats:jnats (jnats-2.21.1.jar)");

    final String displayName;
    final String defaultAddress;
    private final String clientClass;
    private final String clientJar;

    Kind(String displayName, String defaultAddress, String clientClass, String clientJar) {
      this.displayName = displayName;
      this.defaultAddress = defaultAddress;
      this.clientClass = clientClass;
      this.clientJar = clientJar;
    }

    String option() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private DemoBrokers() {}

  /**
   * Connects to the broker at {@code address} (its default when null) and declares what the demo
   * needs there; fails at once with a {@link DemoException} naming the broker and the address when
   * the client is missing or the broker does not answer.
   */
  static DemoBroker open(Kind kind, String address, String topic) {
    requireClient(kind);
    String at = address != null ? address : kind.defaultAddress;
    try {
      return switch (kind) {
        case RABBITMQ -> new RabbitMqDemoBroker(at, topic);
        case KAFKA -> new KafkaDemoBroker(at, topic);
        case NATS -> new NatsDemoBroker(at, topic);
      };
    } catch (DemoException e) {
      throw e;
    } catch (Exception e) {
      throw new DemoException(
          "cannot reach "
              + kind.displayName
              + " at "
              + withoutPassword(at)
              + ": "
              + describe(e)
              + " (--publish "
              + kind.option()
              + ", give the address with --broker)",
          e);
    }
  }

  private static void requireClient(Kind kind) {
    try {
      Class.forName(kind.clientClass, false, DemoBrokers.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      throw new DemoException(
          "--publish "
              + kind.option()
              + " needs the "
              + kind.displayName
              + " client on the class path, "
              + kind.clientJar
              + ", which the CLI jar does not include. Run for example: java -cp"
              + " jooq-outbox-VERSION-cli.jar:CLIENT.jar dev.jooqoutbox.cli.OutboxCli demo"
              + " --publish "
              + kind.option(),
          e);
    }
  }

  /** The address as shown: an AMQP URI's password replaced by {@code ***}. */
  static String withoutPassword(String address) {
    try {
      URI uri = URI.create(address);
      String user = uri.getUserInfo();
      if (user != null && user.contains(":")) {
        return address.replace(user, user.substring(0, user.indexOf(':')) + ":***");
      }
    } catch (IllegalArgumentException e) {
      // Not a URI (Kafka's host:port list): nothing to hide.
    }
    return address;
  }

  private static String describe(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    if (root instanceof java.util.concurrent.TimeoutException) {
      return "no answer within 5 s";
    }
    String message = root.getMessage() != null ? root.getMessage() : e.getMessage();
    return message != null ? message : root.getClass().getSimpleName();
  }
}
