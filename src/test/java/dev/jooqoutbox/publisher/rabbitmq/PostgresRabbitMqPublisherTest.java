package dev.jooqoutbox.publisher.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import dev.jooqoutbox.faults.ChildJvm;
import dev.jooqoutbox.publisher.TestBrokers;
import dev.jooqoutbox.testing.TestDatabase;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The RabbitMQ publisher on PostgreSQL: the happy path of the contract, plus order across three
 * relays, a broker outage in the middle of a drain, a relay killed while publishing, unroutable and
 * nacked messages.
 */
class PostgresRabbitMqPublisherTest extends RabbitMqPublisherContract {

  PostgresRabbitMqPublisherTest() {
    super(TestDatabase.Kind.POSTGRES);
  }

  @Test
  void threeRelaysKeepEachAggregatesOrderAtTheConsumer() throws Exception {
    assertThreeRelaysKeepEachAggregatesOrder(
        topic, () -> publisher(TestBrokers.RABBITMQ_PORT), consumer::received);
  }

  @Test
  void anOutageInTheMiddleOfADrainLosesNothingAndTheRelayResumesByItself() throws Exception {
    List<String> ids = drainThroughAnOutage(topic, TestBrokers.RABBITMQ_PORT, this::publisher);

    awaitNothingPending(Duration.ofSeconds(60));
    awaitReceived(() -> consumer.received().stream().map(r -> r.id()).distinct().toList(), 300);

    assertSomeAttemptFailed();
    assertThat(admin.deadCount()).isZero();
    assertArrivedAsWritten(ids, consumer.received(), false);
    int copies = assertInOrderPerAggregate(consumer.received(), 30);
    System.out.printf("RabbitMQ outage: %d copies of %d messages%n", copies, ids.size());
  }

  @Test
  void aRelayKilledMidPublishLeavesAtMostTheMessagesItHeldAsCopies(@TempDir Path logs)
      throws Exception {
    List<String> ids = write(topic, 20, 100);
    ChildJvm child =
        startRelayProcess(
            logs.resolve("relay.log"),
            "rabbitmq",
            "amqp://guest:guest@" + TestBrokers.HOST + ":" + TestBrokers.RABBITMQ_PORT,
            topic);
    List<String> heldAtTheKill = killWhileHolding(child);
    // A second relay takes over once the killed one's lease (2 s) ran out and publishes again
    // what the first had claimed; those the broker had already taken arrive twice, same id.
    startRelay(topic, publisher(TestBrokers.RABBITMQ_PORT));

    awaitNothingPending(Duration.ofSeconds(60));
    awaitReceived(() -> consumer.received().stream().map(r -> r.id()).distinct().toList(), 2000);

    assertDeliveredAgain(heldAtTheKill);
    assertArrivedAsWritten(ids, consumer.received(), false);
    int copies = assertFirstArrivalsInOrderPerAggregate(consumer.received(), 100);
    assertCopiesAtMostHeld(consumer.received(), heldAtTheKill);
    System.out.printf(
        "RabbitMQ kill: %d copies, %d messages held by the killed relay%n",
        copies, heldAtTheKill.size());
  }

  @Test
  void anUnroutableMessageIsRetriedThenDeadLetteredWithTheBrokersReason() throws Exception {
    String unroutable = "outbox-test-unbound-" + UUID.randomUUID();
    try (Connection c =
            RabbitConsumer.factory(TestBrokers.RABBITMQ_PORT).newConnection("outbox-test-setup");
        Channel channel = c.createChannel()) {
      // An exchange without any queue bound: every message sent to it is returned.
      channel.exchangeDeclare(unroutable, BuiltinExchangeType.TOPIC, false, false, null);
      try {
        String id =
            dsl.transactionResult(tx -> outbox.write(tx.dsl(), "agg-0", unroutable, payload(0, 0)));
        closeLater(
                relay()
                    .maxAttempts(3)
                    .asyncHandler(unroutable, publisher(TestBrokers.RABBITMQ_PORT))
                    .build())
            .start();

        awaitNothingPending(Duration.ofSeconds(30));

        assertDeadWithReason(id, "312 NO_ROUTE");
        assertThat(admin.message(id).orElseThrow().attempts()).isEqualTo(3);
      } finally {
        channel.exchangeDelete(unroutable);
      }
    }
  }

  @Test
  void aNackedMessageIsRetriedThenDeadLetteredWithTheBrokersReason() throws Exception {
    String full = "outbox-test-full-" + UUID.randomUUID();
    try (Connection c =
            RabbitConsumer.factory(TestBrokers.RABBITMQ_PORT).newConnection("outbox-test-setup");
        Channel channel = c.createChannel()) {
      // A queue that takes no message and rejects publishes to it: the broker nacks them.
      channel.exchangeDeclare(full, BuiltinExchangeType.TOPIC, false, false, null);
      channel.queueDeclare(
          full, false, false, false, Map.of("x-max-length", 0, "x-overflow", "reject-publish"));
      channel.queueBind(full, full, "#");
      try {
        String id =
            dsl.transactionResult(tx -> outbox.write(tx.dsl(), "agg-0", full, payload(0, 0)));
        closeLater(
                relay()
                    .maxAttempts(3)
                    .asyncHandler(full, publisher(TestBrokers.RABBITMQ_PORT))
                    .build())
            .start();

        awaitNothingPending(Duration.ofSeconds(30));

        assertDeadWithReason(id, "RabbitMQ nacked the message");
        assertThat(admin.message(id).orElseThrow().attempts()).isEqualTo(3);
      } finally {
        channel.queueDelete(full);
        channel.exchangeDelete(full);
      }
    }
  }
}
