package dev.jooqoutbox.publisher.kafka;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;

/** The builder refuses a producer configuration that would weaken what "sent" means. */
class KafkaPublisherBuilderTest {

  @Test
  void aProducerThatDoesNotWaitForAllReplicasIsRefused() {
    assertThatThrownBy(() -> KafkaPublisher.builder(Map.of(ProducerConfig.ACKS_CONFIG, "1")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("acks must be all for the outbox publisher: 1");
  }

  @Test
  void aProducerWithoutIdempotenceIsRefused() {
    assertThatThrownBy(
            () -> KafkaPublisher.builder(Map.of(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("enable.idempotence must be true for the outbox publisher: false");
  }
}
