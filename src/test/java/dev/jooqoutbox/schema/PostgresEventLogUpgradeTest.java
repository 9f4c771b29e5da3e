package dev.jooqoutbox.schema;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.jooqoutbox.MessageStatus;
import dev.jooqoutbox.Outbox;
import dev.jooqoutbox.OutboxAdmin;
import dev.jooqoutbox.OutboxSchema;
import dev.jooqoutbox.internal.repository.JooqOutboxRepository;
import dev.jooqoutbox.relay.OutboxRelay;
import dev.jooqoutbox.testing.EmptyDatabasePerTest;
import dev.jooqoutbox.testing.MutableClock;
import dev.jooqoutbox.testing.ReleasedSchema;
import dev.jooqoutbox.testing.TestChangelogs;
import dev.jooqoutbox.testing.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jooq.Result;
import org.jooq.exception.DataAccessException;
import org.junit.jupiter.api.Test;

/**
 * An upgrade of PostgreSQL from the changelog released before {@code 009-event-log}, with messages
 * in every state: pending, leased by a relay that died, backing off, dead, of unknown outcome. The
 * changeset keeps every row as it was; the relay of this release delivers them from outbox_message
 * (where the messages that need a state of their own live from now on) while new writes go to the
 * event log, an aggregate's new messages waiting behind its old pending ones; the dead letter stays
 * dead, the unknown outcome waits for its decision. The rollback gives outbox_message back every
 * message of the log no shard had settled, as pending with its seq, and drops the log's tables; a
 * relay then delivers them from the rows.
 */
class PostgresEventLogUpgradeTest extends EmptyDatabasePerTest {

  static final String RELEASED_CHANGELOG = "dev/jooqoutbox/schema/released-001-008.xml";
  static final Instant T = Instant.parse("2026-12-01T08:00:00Z");

  PostgresEventLogUpgradeTest() {
    super(TestDatabase.Kind.POSTGRES);
  }

  @Test
  void messagesInEveryStateAreKeptAndDeliveredAndTheRollbackGivesTheLogBack() throws Exception {
    TestChangelogs.update(db.dataSource(), RELEASED_CHANGELOG);
    MutableClock clock = new MutableClock(T);
    // acct-0: pending, pending; acct-1: leased by a dead relay, then pending; acct-2: backing off;
    // acct-3: dead; acct-4: unknown outcome, then pending.
    List<String> ids = ReleasedSchema.writeInTurn(dsl, clock, 10, 5);
    JooqOutboxRepository old = new JooqOutboxRepository(dsl);
    var leased = old.claim(Set.of("up"), 10, 1, Duration.ofSeconds(60), "old", T);
    assertThat(leased).hasSize(5); // the head of each aggregate
    long acct0 = leased.get(0).seq();
    old.release("old", List.of(acct0));
    old.retryLater("old", leased.get(2).seq(), "down", T.plusSeconds(300));
    old.deadLetter("old", leased.get(3).seq(), "poison", T);
    old.outcomes()
        .markUnknown("old", leased.get(4).seq(), "ref-4", "timed out", T, T.plusSeconds(600));
    Result<?> before = rows();

    OutboxSchema.migrate(db.dataSource());

    assertThat(TestChangelogs.applied(dsl)).last().asString().startsWith("009-event-log-");
    assertThat(rows()).as("rows after the upgrade").isEqualTo(before);
    // Written after the upgrade: to the log, behind the old rows of its aggregate.
    Outbox outbox = Outbox.builder(dsl).clock(clock).notifyOnWrite(false).build();
    String newOfAcct0 =
        dsl.transactionResult(tx -> outbox.write(tx.dsl(), "acct-0", "up", Map.of("n", 9)));
    String newOfAcct9 =
        dsl.transactionResult(tx -> outbox.write(tx.dsl(), "acct-9", "up", Map.of("n", 9)));
    assertThat(dsl.fetchCount(OUTBOX_MESSAGE)).as("new writes go to the log").isEqualTo(10);

    clock.advance(Duration.ofMinutes(2)); // the dead relay's lease has run out
    List<String> delivered = new CopyOnWriteArrayList<>();
    try (OutboxRelay relay =
        OutboxRelay.builder(dsl)
            .clock(clock)
            .listen(false)
            .handler("up", m -> delivered.add(m.id()))
            .build()) {
      for (int round = 0; round < 5; round++) {
        relay.drainOnce(100);
      }
      // acct-0's old messages, then its new one; acct-1's two (the leased one again); acct-3's
      // second (a dead letter holds nothing back); acct-4's pending one waits behind its unknown
      // outcome, acct-2's two behind the backoff.
      assertThat(delivered)
          .as("ids %s", ids)
          .containsExactlyInAnyOrder(
              ids.get(0), ids.get(5), newOfAcct0, ids.get(1), ids.get(6), ids.get(8), newOfAcct9);
      assertThat(delivered.indexOf(newOfAcct0)).isGreaterThan(delivered.indexOf(ids.get(5)));
      OutboxAdmin admin = OutboxAdmin.create(dsl, clock);
      assertThat(admin.message(ids.get(3)).orElseThrow().status()).isEqualTo(MessageStatus.DEAD);
      assertThat(admin.message(ids.get(4)).orElseThrow().status())
          .isEqualTo(MessageStatus.OUTCOME_UNKNOWN);
      clock.advance(Duration.ofMinutes(6)); // acct-2's backoff is over
      relay.drainOnce(100);
      assertThat(delivered).contains(ids.get(2), ids.get(7));
    }

    // Written and not delivered, then rolled back: the log's unsettled message becomes a row.
    String unsettled =
        dsl.transactionResult(tx -> outbox.write(tx.dsl(), "acct-8", "up", Map.of("n", 8)));
    OutboxSchema.rollback(db.dataSource(), 1);
    assertThat(TestChangelogs.applied(dsl)).noneMatch(id -> id.startsWith("009-"));
    assertThatThrownBy(() -> dsl.fetchCount(Tables.OUTBOX_EVENT))
        .as("the log after the rollback")
        .isInstanceOf(DataAccessException.class);
    assertThat(
            dsl.fetchValues(
                OUTBOX_MESSAGE.ID,
                OUTBOX_MESSAGE.SENT_AT.isNull().and(OUTBOX_MESSAGE.DEAD_AT.isNull())))
        .as("pending rows after the rollback: the unsettled one, none delivered")
        .contains(unsettled)
        .doesNotContain(newOfAcct0, newOfAcct9, ids.get(0), ids.get(8));
    // The relay of the release before reads rows: the old repository's claim takes it.
    List<String> afterRollback = new ArrayList<>();
    old.claim(Set.of("up"), 10, 1, Duration.ofSeconds(60), "after", clock.instant())
        .forEach(m -> afterRollback.add(m.id()));
    assertThat(afterRollback).contains(unsettled);
  }

  private Result<?> rows() {
    return dsl.selectFrom(OUTBOX_MESSAGE).orderBy(OUTBOX_MESSAGE.SEQ).fetch();
  }
}
