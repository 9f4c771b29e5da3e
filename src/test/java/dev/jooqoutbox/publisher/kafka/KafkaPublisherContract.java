package dev.jooqoutbox.publisher.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jooqoutbox.publisher.PublisherFixture;
import dev.jooqoutbox.publisher.Received;
import dev.jooqoutbox.testing.TestDatabase;
import dev.jooqoutbox.testing.TestTracing;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Kafka publisher behind a relay, against a real broker started in this JVM for the class: what
 * the relay sends is stored as written, each aggregate in one partition in order. The PostgreSQL
 * subclass adds order across three relays.
 */
abstract class KafkaPublisherContract extends PublisherFixture {

  static final int PARTITIONS = 3;

  KafkaBroker broker;

  /** Each test's own Kafka topic (the default topic function maps the outbox topic to it). */
  String topic;

  KafkaPublisherContract(TestDatabase.Kind kind) {
    super(kind);
  }

  @BeforeAll
  void startBroker() throws Exception {
    broker = new KafkaBroker();
  }

  @AfterAll
  void stopBroker() throws Exception {
    broker.close();
  }

  @BeforeEach
  void topicOfItsOwn() throws Exception {
    topic = "outbox-test-" + UUID.randomUUID();
    broker.createTopic(topic, PARTITIONS);
  }

  KafkaPublisher publisher() {
    return closeLater(
        KafkaPublisher.builder(
                Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                    ProducerConfig.LINGER_MS_CONFIG, 1,
                    ProducerConfig.MAX_BLOCK_MS_CONFIG, 5000))
            .build());
  }

  List<Received> received() {
    return KafkaConsumerReader.readAll(broker.bootstrapServers(), topic, PARTITIONS);
  }

  @Test
  void everyMessageIsStoredAsWrittenWithItsIdHeader() throws Exception {
    List<String> ids = write(topic, 5, 20);
    startRelay(topic, publisher());

    awaitNothingPending(Duration.ofSeconds(30));

    assertArrivedAsWritten(ids, received(), true);
    assertInOrderPerAggregate(received(), 20);
    assertThat(admin.message(ids.get(0)).orElseThrow().attempts()).isEqualTo(1);
  }

  @Test
  void aMessageWrittenInASpanCarriesItsTraceToTheBrokersConsumer() throws Exception {
    try (TestTracing tracing = new TestTracing()) {
      String traceId = writeInASpanAndRelay(tracing, topic, publisher());
      awaitReceived(this::received, 1);
      assertContinuesTrace(received().get(0), traceId);
    }
  }
}
