package dev.jooqoutbox.faults;

import static dev.jooqoutbox.schema.Tables.OUTBOX_RELAY;
import static dev.jooqoutbox.schema.Tables.OUTBOX_SHARD;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.jooqoutbox.MessageStatus;
import dev.jooqoutbox.Outbox;
import dev.jooqoutbox.internal.eventlog.EventShards;
import dev.jooqoutbox.relay.OutboxRelay;
import dev.jooqoutbox.testing.MessageRow;
import dev.jooqoutbox.testing.TestDatabase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jooq.DSLContext;
import org.junit.jupiter.api.Test;

/**
 * A relay process killed after its handler reported the outcome unknown and before the settle that
 * records it reached the database ({@link UnknownThenKilledMain}): the unknown outcome was never
 * stored, so the message stays leased to the dead process until its lease runs out, then is
 * delivered again as a new attempt, ahead of the rest of its aggregate (docs/guarantees.md,
 * "Outcomes").
 */
abstract class KilledAtUnknownSettleContract {

  // Long enough that the child's heartbeat keeps its claims on a loaded 2-core machine (with 2 s a
  // starved child once lost its lease before halting and claimed the message again).
  private static final Duration LEASE = Duration.ofSeconds(5);
  private static final String TOPIC = "payments";

  private final TestDatabase.Kind kind;

  KilledAtUnknownSettleContract(TestDatabase.Kind kind) {
    this.kind = kind;
  }

  @Test
  void theMessageIsDeliveredAgainAfterTheDeadRelaysLease() throws IOException {
    Faults.quietLogs();
    Path log = Files.createTempFile("fault-unknown-", ".log");
    try (TestDatabase db = TestDatabase.migrated(kind)) {
      DSLContext dsl = db.dsl();
      Outbox outbox = Outbox.create(dsl);
      String charge =
          dsl.transactionResult(tx -> outbox.write(tx.dsl(), "card-1", TOPIC, Map.of("n", 1)));
      String next =
          dsl.transactionResult(tx -> outbox.write(tx.dsl(), "card-1", TOPIC, Map.of("n", 2)));

      ChildJvm child =
          ChildJvm.start(
              UnknownThenKilledMain.class,
              log,
              db.dialect().name(),
              db.url(),
              Long.toString(LEASE.toMillis()),
              TOPIC);
      int exit = child.waitFor(120);
      assertThat(exit)
          .as("exit of the relay:\n%s", child.output())
          .isEqualTo(UnknownThenKilledMain.HALTED);
      assertThat(child.output()).contains("UNKNOWN " + charge + " attempt 1").contains("HALT");

      MessageRow left = row(dsl, charge);
      assertThat(left.getOutcomeUnknownAt()).as("the unknown outcome was never stored").isNull();
      assertThat(left.getRemoteRef()).isNull();
      if (left.hasRow()) {
        assertThat(left.getClaimToken()).as("still leased to the dead relay").isNotNull();
        assertThat(left.getAttempts()).isEqualTo(1);
        // The next message of the aggregate came in the same run and was never given back either.
        assertThat(row(dsl, next).getClaimToken()).isEqualTo(left.getClaimToken());
        assertThat(row(dsl, next).getAttempts()).isEqualTo(1);
      } else {
        // PostgreSQL's event log: the message was never copied to outbox_message (the copy is the
        // settle the relay died at), and a relay leases shards, not rows. Their shard is still
        // leased to the dead relay, with a mark past both messages (it may have handed them out),
        // so whoever takes the shard over counts that attempt; neither was given back or copied.
        assertThat(left.status()).isEqualTo(MessageStatus.PENDING);
        assertThat(row(dsl, next).hasRow()).as("the next message copied").isFalse();
        assertThat(row(dsl, next).status()).isEqualTo(MessageStatus.PENDING);
        var shard =
            dsl.selectFrom(OUTBOX_SHARD)
                .where(OUTBOX_SHARD.SHARD.eq(EventShards.of("card-1")))
                .fetchSingle();
        assertThat(shard.getRelayId()).as("the shard still leased to the dead relay").isNotNull();
        assertThat(
                dsl.select(OUTBOX_RELAY.PID)
                    .from(OUTBOX_RELAY)
                    .where(OUTBOX_RELAY.RELAY_ID.eq(shard.getRelayId()))
                    .fetchOne(OUTBOX_RELAY.PID))
            .as("the relay holding the shard")
            .isEqualTo(child.pid());
        assertThat(shard.getReadMark())
            .as("the dead relay's mark covers both messages")
            .isNotNull()
            .isGreaterThanOrEqualTo(Math.max(left.getSeq(), row(dsl, next).getSeq()));
      }

      List<String> delivered = new CopyOnWriteArrayList<>();
      List<Integer> attempts = new CopyOnWriteArrayList<>();
      try (OutboxRelay relay =
          OutboxRelay.builder(dsl)
              .listen(false)
              .pollInterval(Duration.ofMillis(50))
              .maxRun(1)
              .handler(
                  TOPIC,
                  m -> {
                    delivered.add(m.id());
                    attempts.add(m.attempt());
                  })
              .build()) {
        relay.start();
        await().atMost(Duration.ofSeconds(60)).until(() -> delivered.size() == 2);
      }
      assertThat(delivered).containsExactly(charge, next);
      assertThat(attempts).containsExactly(2, 2);
      assertThat(row(dsl, charge).isSent()).isTrue();
      assertThat(row(dsl, charge).getOutcomeUnknownAt()).isNull();
    }
    Files.deleteIfExists(log); // kept only when the test fails
  }

  /** Message {@code id} wherever stored: its row, or on PostgreSQL its message of the event log. */
  private static MessageRow row(DSLContext dsl, String id) {
    return MessageRow.of(dsl, Clock.systemUTC(), id);
  }
}
