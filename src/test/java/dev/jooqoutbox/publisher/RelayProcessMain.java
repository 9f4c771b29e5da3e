package dev.jooqoutbox.publisher;

import com.rabbitmq.client.ConnectionFactory;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.jooqoutbox.faults.ChildJvm;
import dev.jooqoutbox.publisher.kafka.KafkaPublisher;
import dev.jooqoutbox.publisher.nats.NatsPublisher;
import dev.jooqoutbox.publisher.rabbitmq.RabbitMqPublisher;
import dev.jooqoutbox.relay.AsyncOutboxHandler;
import dev.jooqoutbox.relay.OutboxRelay;
import io.nats.client.Nats;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;

/**
 * A relay publishing to a broker in its own JVM, for the crash tests: it publishes the messages of
 * one topic until it is killed.
 *
 * <p>Arguments: {@code broker dialect jdbcUrl brokerAddress topic leaseMillis}, {@code broker} one
 * of {@code rabbitmq} (address an AMQP URI), {@code kafka} (bootstrap servers), {@code nats} (a
 * NATS URL). Prints {@code READY} once the relay runs.
 */
public final class RelayProcessMain {

  private RelayProcessMain() {}

  public static void main(String[] args) throws Exception {
    SQLDialect dialect = SQLDialect.valueOf(args[1]);
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(args[2]);
    config.setMaximumPoolSize(6);
    HikariDataSource pool = new HikariDataSource(config);
    DSLContext dsl = DSL.using(pool, dialect, new Settings().withExecuteLogging(false));
    AsyncOutboxHandler publisher = paced(publisher(args[0], args[3]));
    OutboxRelay relay =
        OutboxRelay.builder(dsl)
            .asyncHandler(args[4], publisher)
            .lease(Duration.ofMillis(Long.parseLong(args[5])))
            .listen(false)
            .pollInterval(Duration.ofMillis(20))
            .handlerConcurrency(2)
            .build();
    ChildJvm.runUntilShutdown(relay, pool, "READY pid " + ProcessHandle.current().pid());
  }

  /**
   * {@code publisher}, 2 ms slower per message on each of the two handler threads: a drain of a few
   * thousand messages then lasts seconds even on an idle machine, so the test can kill the relay in
   * the middle of it (unpaced, RabbitMQ and NATS drained 2,000 messages between the test's check
   * and its kill on a loaded machine).
   */
  private static AsyncOutboxHandler paced(AsyncOutboxHandler publisher) {
    return message -> {
      try {
        Thread.sleep(2);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return publisher.handle(message);
    };
  }

  private static AsyncOutboxHandler publisher(String broker, String address) throws Exception {
    switch (broker) {
      case "rabbitmq":
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(address);
        return RabbitMqPublisher.builder(factory).build();
      case "kafka":
        return KafkaPublisher.builder(
                Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, address,
                    ProducerConfig.LINGER_MS_CONFIG, 1,
                    ProducerConfig.MAX_BLOCK_MS_CONFIG, 5000))
            .build();
      case "nats":
        return NatsPublisher.builder(Nats.connect(address)).build();
      default:
        throw new IllegalArgumentException("unknown broker " + broker);
    }
  }
}
