package dev.jooqoutbox.publisher.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jooqoutbox.faults.ChildJvm;
import dev.jooqoutbox.publisher.Received;
import dev.jooqoutbox.testing.TestDatabase;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Kafka publisher on PostgreSQL: the happy path of the contract, plus three relays at once and
 * an outage (every connection to the broker cut) in the middle of a drain and a relay killed while
 * publishing.
 */
class PostgresKafkaPublisherTest extends KafkaPublisherContract {

  PostgresKafkaPublisherTest() {
    super(TestDatabase.Kind.POSTGRES);
  }

  @Test
  void threeRelaysKeepEachAggregatesOrderInItsPartition() throws Exception {
    assertThreeRelaysKeepEachAggregatesOrder(topic, this::publisher, this::received);
  }

  @Test
  void anOutageInTheMiddleOfADrainLosesNothingAndTheRelayResumesByItself() throws Exception {
    List<String> ids = write(topic, 10, 30);
    // Sends fail soon after the cut (instead of the producer retrying them for two minutes), so
    // the relay's own retry is what this test exercises.
    KafkaPublisher publisher =
        closeLater(
            KafkaPublisher.builder(
                    Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                        ProducerConfig.LINGER_MS_CONFIG, 1,
                        ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 500,
                        ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 800,
                        ProducerConfig.MAX_BLOCK_MS_CONFIG, 1000))
                .build());
    startRelay(topic, cutAt(100, broker.proxy(), Duration.ofSeconds(2), publisher));

    awaitNothingPending(Duration.ofSeconds(60));

    assertSomeAttemptFailed();
    assertThat(admin.deadCount()).isZero();
    List<Received> received = received();
    assertArrivedAsWritten(ids, received, false);
    int copies = assertInOrderPerAggregate(received, 30);
    System.out.printf("Kafka outage: %d copies of %d messages%n", copies, ids.size());
  }

  /**
   * Kafka's refusal of a record (here one larger than the producer's {@code max.request.size})
   * fails the attempt: retried, then dead-lettered with the client's reason, never marked sent.
   */
  @Test
  void aRecordKafkaRefusesIsRetriedThenDeadLetteredWithTheReason() throws Exception {
    String id =
        dsl.transactionResult(
            tx -> outbox.write(tx.dsl(), "agg-0", topic, Map.of("blob", "x".repeat(4_000))));
    KafkaPublisher publisher =
        closeLater(
            KafkaPublisher.builder(
                    Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        broker.bootstrapServers(),
                        ProducerConfig.MAX_REQUEST_SIZE_CONFIG,
                        1024))
                .build());
    closeLater(relay().maxAttempts(3).asyncHandler(topic, publisher).build()).start();

    awaitNothingPending(Duration.ofSeconds(30));

    assertDeadWithReason(id, "RecordTooLargeException");
    assertThat(admin.message(id).orElseThrow().attempts()).isEqualTo(3);
    assertThat(received()).isEmpty();
  }

  @Test
  void aRelayKilledMidPublishLeavesAtMostTheMessagesItHeldAsCopies(@TempDir Path logs)
      throws Exception {
    List<String> ids = write(topic, 20, 100);
    // The child JVM reaches this JVM's broker over its bootstrap address.
    ChildJvm child =
        startRelayProcess(logs.resolve("relay.log"), "kafka", broker.bootstrapServers(), topic);
    List<String> heldAtTheKill = killWhileHolding(child);
    // A second relay takes over once the killed one's lease (2 s) ran out and sends again what
    // the first had claimed; those the broker had already stored are stored twice, same id.
    startRelay(topic, publisher());

    awaitNothingPending(Duration.ofSeconds(60));

    assertDeliveredAgain(heldAtTheKill);
    List<Received> received = received();
    assertArrivedAsWritten(ids, received, false);
    int copies = assertFirstArrivalsInOrderPerAggregate(received, 100);
    assertCopiesAtMostHeld(received, heldAtTheKill);
    System.out.printf(
        "Kafka kill: %d copies, %d messages held by the killed relay%n",
        copies, heldAtTheKill.size());
  }
}
