package dev.jooqoutbox.publisher.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.Delivery;
import dev.jooqoutbox.publisher.PublisherFixture;
import dev.jooqoutbox.publisher.TestBrokers;
import dev.jooqoutbox.testing.TestDatabase;
import dev.jooqoutbox.testing.TestTracing;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The RabbitMQ publisher behind a relay, against the real broker: what the relay sends arrives as
 * written. The PostgreSQL subclass adds order across relays, an outage and unroutable messages.
 */
abstract class RabbitMqPublisherContract extends PublisherFixture {

  /** Each test's own exchange: the default exchange function maps the topic to it. */
  String topic;

  RabbitConsumer consumer;

  RabbitMqPublisherContract(TestDatabase.Kind kind) {
    super(kind);
  }

  @BeforeAll
  void brokerAnswers() {
    TestBrokers.assumeRabbitMq();
  }

  @BeforeEach
  void exchangeAndConsumer() throws Exception {
    topic = "outbox-test-" + UUID.randomUUID();
    consumer = closeLater(new RabbitConsumer(topic));
  }

  RabbitMqPublisher publisher(int port) {
    return closeLater(RabbitMqPublisher.builder(RabbitConsumer.factory(port)).build());
  }

  @Test
  void everyMessageArrivesAsWrittenWithItsIdHeadersAndProperties() throws Exception {
    List<String> ids = write(topic, 5, 20);
    startRelay(topic, publisher(TestBrokers.RABBITMQ_PORT));

    awaitNothingPending(Duration.ofSeconds(30));
    awaitReceived(consumer::received, ids.size());

    assertArrivedAsWritten(ids, consumer.received(), true);
    assertInOrderPerAggregate(consumer.received(), 20);
    for (Delivery d : consumer.deliveries) {
      assertThat(d.getProperties().getDeliveryMode()).as("persistent").isEqualTo(2);
      assertThat(d.getProperties().getContentType()).isEqualTo("application/json");
      assertThat(d.getEnvelope().getRoutingKey()).as("routing key = aggregate").startsWith("agg-");
    }
    assertThat(admin.message(ids.get(0)).orElseThrow().attempts()).isEqualTo(1);
  }

  @Test
  void aMessageWrittenInASpanCarriesItsTraceToTheBrokersConsumer() throws Exception {
    try (TestTracing tracing = new TestTracing()) {
      String traceId = writeInASpanAndRelay(tracing, topic, publisher(TestBrokers.RABBITMQ_PORT));
      awaitReceived(consumer::received, 1);
      assertContinuesTrace(consumer.received().get(0), traceId);
    }
  }
}
