package dev.jooqoutbox.publisher.nats;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jooqoutbox.faults.ChildJvm;
import dev.jooqoutbox.publisher.TestBrokers;
import dev.jooqoutbox.testing.TestDatabase;
import io.nats.client.ConnectionListener;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The NATS publisher on PostgreSQL: the happy path of the contract, plus order across three relays,
 * a server outage in the middle of a drain and a relay killed while publishing (the stream's
 * duplicate window drops the re-sent copies), and a subject no stream captures.
 */
class PostgresNatsPublisherTest extends NatsPublisherContract {

  PostgresNatsPublisherTest() {
    super(TestDatabase.Kind.POSTGRES);
  }

  @Test
  void threeRelaysKeepEachAggregatesOrderInTheStream() throws Exception {
    assertThreeRelaysKeepEachAggregatesOrder(
        topic, () -> publisher(TestBrokers.NATS_PORT), stream::received);
  }

  @Test
  void anOutageLosesNothingAndTheDuplicateWindowDropsTheResentCopies() throws Exception {
    List<String> ids = drainThroughAnOutage(topic, TestBrokers.NATS_PORT, this::publisher);

    awaitNothingPending(Duration.ofSeconds(25));

    // The client was cut off and reconnected by itself; messages in flight then either failed
    // their attempt (no ack within the timeout) or were acknowledged after the reconnect.
    assertThat(events)
        .contains(ConnectionListener.Events.DISCONNECTED, ConnectionListener.Events.RECONNECTED);
    assertThat(admin.deadCount()).isZero();
    // Exactly once in the stream: a message stored before the cut and sent again carries the same
    // Nats-Msg-Id, which the stream drops within its duplicate window.
    assertArrivedAsWritten(ids, stream.received(), true);
    assertInOrderPerAggregate(stream.received(), 30);
  }

  @Test
  void aSubjectWithoutAStreamIsRetriedThenDeadLetteredWithTheServersReason() throws Exception {
    String nowhere = topic + "_nowhere";
    String id =
        dsl.transactionResult(tx -> outbox.write(tx.dsl(), "agg-0", nowhere, payload(0, 0)));
    closeLater(
            relay().maxAttempts(3).asyncHandler(nowhere, publisher(TestBrokers.NATS_PORT)).build())
        .start();

    awaitNothingPending(Duration.ofSeconds(30));

    assertDeadWithReason(id, "503");
    assertThat(admin.message(id).orElseThrow().attempts()).isEqualTo(3);
  }

  @Test
  void aHeaderNameNatsCannotCarryIsRetriedThenDeadLetteredWithTheClientsReason() throws Exception {
    String id =
        dsl.transactionResult(
            tx ->
                outbox
                    .message("agg-0", topic, payload(0, 0))
                    .header("not a token:", "v")
                    .write(tx.dsl()));
    closeLater(relay().maxAttempts(2).asyncHandler(topic, publisher(TestBrokers.NATS_PORT)).build())
        .start();

    awaitNothingPending(Duration.ofSeconds(30));

    assertDeadWithReason(id, "IllegalArgumentException: Header key has invalid character");
  }

  @Test
  void aRelayKilledMidPublishLeavesEveryMessageStoredOnce(@TempDir Path logs) throws Exception {
    List<String> ids = write(topic, 20, 100);
    ChildJvm child =
        startRelayProcess(
            logs.resolve("relay.log"), "nats", TestBrokers.natsUrl(TestBrokers.NATS_PORT), topic);
    List<String> heldAtTheKill = killWhileHolding(child);
    long storedAtTheKill = stream.receivedNow().size();
    // A second relay takes over once the killed one's lease (2 s) ran out, and sends again what
    // the first had claimed: what the first had published is stored once, the stream drops the
    // copy by its Nats-Msg-Id.
    startRelay(topic, publisher(TestBrokers.NATS_PORT));

    awaitNothingPending(Duration.ofSeconds(60));

    assertThat(storedAtTheKill).isLessThan(ids.size());
    assertDeliveredAgain(heldAtTheKill);
    assertArrivedAsWritten(ids, stream.received(), true);
    assertInOrderPerAggregate(stream.received(), 100);
  }
}
