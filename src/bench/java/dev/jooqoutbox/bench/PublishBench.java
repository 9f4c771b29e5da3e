package dev.jooqoutbox.bench;

import dev.jooqoutbox.publisher.kafka.KafkaPublisher;
import dev.jooqoutbox.publisher.nats.NatsPublisher;
import dev.jooqoutbox.publisher.rabbitmq.RabbitMqPublisher;
import dev.jooqoutbox.relay.AsyncOutboxHandler;
import dev.jooqoutbox.relay.OutboxRelay;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import javax.sql.DataSource;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.jooq.DSLContext;

/**
 * Figure: relay to broker throughput, per broker, against the lesser of two limits measured in the
 * same run: the broker client's own best confirmed loop ({@link ClientLoops}: same messages, every
 * confirmation waited for, pipelined, no database) and the same relay with a no-op asynchronous
 * handler (the database side alone). The three engines of a broker run one after the other, in an
 * order that rotates with the repetition, each draining (or publishing) the same number of messages
 * over 1,000 aggregates; the ratio is taken per repetition.
 */
final class PublishBench {

  static final int AGGREGATES = 1000;

  enum Engine {
    CLIENT("client", "the client's own confirmed loop"),
    NOOP("noop", "relay, no-op async handler"),
    RELAY("relay", "relay with the publisher");

    final String key;
    final String label;

    Engine(String key, String label) {
      this.key = key;
      this.label = label;
    }
  }

  private PublishBench() {}

  static Map<String, Object> kafkaConfig(BenchBrokers brokers) {
    return Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
        brokers.kafkaBootstrap(),
        ProducerConfig.ACKS_CONFIG,
        "all",
        ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
        "true",
        ProducerConfig.LINGER_MS_CONFIG,
        5);
  }

  static void run(BenchDatabase db, BenchOptions opts, Recorder r) {
    int count = opts.publishSize();
    DataSource pool = db.pool(6);
    DSLContext dsl = db.dsl(pool);
    try (BenchBrokers brokers = new BenchBrokers()) {
      for (String broker : List.of("rabbitmq", "nats", "kafka")) {
        // Warm-up (JIT, connections): every engine once on a tenth, untimed.
        for (Engine e : Engine.values()) {
          measure(db, dsl, brokers, broker, e, Math.max(count / 10, 100), "w");
        }
        List<Double> limits = new ArrayList<>();
        for (int rep = 0; rep < opts.reps(); rep++) {
          double client = 0;
          double noop = 0;
          for (Engine e : WriteBench.rotate(List.of(Engine.values()), rep)) {
            double rate = measure(db, dsl, brokers, broker, e, count, "r" + rep);
            r.add(id(broker, e.key), broker + ": " + e.label, "msg/s", rate);
            client = e == Engine.CLIENT ? rate : client;
            noop = e == Engine.NOOP ? rate : noop;
          }
          limits.add(Math.min(client, noop));
          r.add(
              id(broker, "limit"),
              broker + ": the lesser of the client loop and the no-op relay",
              "msg/s",
              Math.min(client, noop));
        }
        r.ratio(
            id(broker, "relay_vs_limit"),
            broker + ": relay with the publisher / the lesser limit",
            id(broker, "relay"),
            id(broker, "limit"),
            ">= 0.7",
            0.7,
            true);
        List<Double> latencies =
            latency(db, dsl, brokers, broker, Math.max(opts.latencySeconds(), 1));
        r.add(
            id(broker, "ack_p50"),
            broker + ": commit to broker ack, p50",
            "ms",
            Stats.percentile(latencies, 50));
        r.add(
            id(broker, "ack_p99"),
            broker + ": commit to broker ack, p99",
            "ms",
            Stats.percentile(latencies, 99));
        r.ratio(
            id(broker, "relay_vs_client"),
            broker + ": relay with the publisher / client loop",
            id(broker, "relay"),
            id(broker, "client"));
        r.ratio(
            id(broker, "relay_vs_noop"),
            broker + ": relay with the publisher / no-op relay",
            id(broker, "relay"),
            id(broker, "noop"));
      }
    } catch (Exception e) {
      throw new IllegalStateException("publish figure failed: " + e.getMessage(), e);
    }
    r.info("messages", count);
    r.info("aggregates", AGGREGATES);
    r.info(
        "relay",
        "OutboxRelay defaults (batch 100, maxRun 10, maxInFlight 500, handlerConcurrency 4),"
            + " listen off, poll 10 ms; measured from start() until nothing is pending");
    r.info(
        "brokers",
        "RabbitMQ durable queue behind a fanout exchange, persistent + mandatory; NATS JetStream"
            + " file stream with Nats-Msg-Id; Kafka single-node KRaft in this JVM, 3 partitions,"
            + " idempotent, acks=all, linger.ms 5");
  }

  private static String id(String broker, String what) {
    return "publish." + broker + "." + what;
  }

  private static double measure(
      BenchDatabase db,
      DSLContext dsl,
      BenchBrokers brokers,
      String broker,
      Engine engine,
      int count,
      String tag)
      throws Exception {
    brokers.purge();
    String unique = tag + "-" + engine.key + "-" + System.nanoTime();
    if (engine == Engine.CLIENT) {
      return switch (broker) {
        case "rabbitmq" -> ClientLoops.rabbitMq(brokers, count, unique);
        case "nats" -> ClientLoops.nats(brokers, count, unique);
        default -> ClientLoops.kafka(brokers, count, unique);
      };
    }
    // Unique ids per load: the NATS stream would take repeated ids for duplicates.
    db.truncate();
    db.loadMessages(count, AGGREGATES, false, unique);
    db.analyze("outbox_message");
    if (engine == Engine.NOOP) {
      return drain(db, dsl, m -> CompletableFuture.completedFuture(null), count);
    }
    return withPublisher(brokers, broker, p -> drain(db, dsl, p, count));
  }

  /** Commit to broker ack at a steady rate ({@link PublishLatency}), in milliseconds. */
  private static List<Double> latency(
      BenchDatabase db, DSLContext dsl, BenchBrokers brokers, String broker, double seconds)
      throws Exception {
    brokers.purge();
    return withPublisher(brokers, broker, p -> PublishLatency.measure(db, dsl, p, seconds));
  }

  /** Starts a relay with {@code handler} and waits until nothing is pending; msg/s. */
  private static double drain(
      BenchDatabase db, DSLContext dsl, AsyncOutboxHandler handler, int count)
      throws InterruptedException {
    try (OutboxRelay relay =
        OutboxRelay.builder(dsl)
            .asyncHandler(BenchDatabase.TOPIC, handler)
            .listen(false)
            .pollInterval(Duration.ofMillis(10))
            .build()) {
      long t0 = System.nanoTime();
      relay.start();
      long deadline = t0 + Duration.ofMinutes(5).toNanos();
      while (db.pendingCount() > 0) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("drain did not finish: " + db.pendingCount() + " left");
        }
        Thread.sleep(10);
      }
      return count / ((System.nanoTime() - t0) / 1e9);
    }
  }

  /** Work done with a publisher. */
  @FunctionalInterface
  private interface WithPublisher<T> {
    T run(AsyncOutboxHandler publisher) throws Exception;
  }

  /** Runs {@code work} with a publisher to {@code broker}'s bench destination, then closes it. */
  private static <T> T withPublisher(BenchBrokers brokers, String broker, WithPublisher<T> work)
      throws Exception {
    return switch (broker) {
      case "rabbitmq" -> {
        try (RabbitMqPublisher p =
            RabbitMqPublisher.builder(brokers.rabbit)
                .exchange(m -> BenchBrokers.DESTINATION)
                .build()) {
          yield work.run(p);
        }
      }
      case "nats" ->
          work.run(
              NatsPublisher.builder(brokers.nats).subject(m -> BenchBrokers.DESTINATION).build());
      default -> {
        try (KafkaPublisher p =
            KafkaPublisher.builder(kafkaConfig(brokers))
                .topic(m -> BenchBrokers.DESTINATION)
                .build()) {
          yield work.run(p);
        }
      }
    };
  }
}
