package dev.jooqoutbox.schema;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.jooqoutbox.MessageState;
import dev.jooqoutbox.MessageStatus;
import dev.jooqoutbox.OutboxAdmin;
import dev.jooqoutbox.OutboxSchema;
import dev.jooqoutbox.internal.repository.JooqOutboxRepository;
import dev.jooqoutbox.testing.EmptyDatabasePerTest;
import dev.jooqoutbox.testing.MutableClock;
import dev.jooqoutbox.testing.ReleasedSchema;
import dev.jooqoutbox.testing.TestChangelogs;
import dev.jooqoutbox.testing.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.jooq.Result;
import org.jooq.exception.DataAccessException;
import org.junit.jupiter.api.Test;

/**
 * An upgrade from the changelog released before {@code 007-parked-at}: messages written before it
 * (pending, leased by a relay that died, backing off, dead) keep every column they had and read as
 * never parked; a dead letter written before it and requeued after it is pending again, holds its
 * aggregate back and everything is delivered, in order; the rollback drops the column (and
 * PostgreSQL's index of the parked rows, which 009 dropped and its rollback creates again) and
 * keeps every row.
 */
abstract class ParkedAtUpgradeContract extends EmptyDatabasePerTest {

  static final String RELEASED_CHANGELOG = "dev/jooqoutbox/schema/released-001-006.xml";
  static final Instant T = Instant.parse("2026-06-01T08:00:00Z");

  ParkedAtUpgradeContract(TestDatabase.Kind kind) {
    super(kind);
  }

  @Test
  void messagesWrittenBeforeTheChangeAreDeliveredAfterItAndTheRollbackKeepsThem() throws Exception {
    TestChangelogs.update(db.dataSource(), RELEASED_CHANGELOG);
    MutableClock clock = new MutableClock(T);
    List<String> written = ReleasedSchema.writeInTurn(dsl, clock, 9, 3);
    // acct-0's first dead, acct-1's first leased by a relay that died, acct-2's backing off.
    JooqOutboxRepository repository = new JooqOutboxRepository(dsl);
    var first = repository.claim(Set.of("up"), 3, Duration.ofSeconds(60), "old", T);
    repository.deadLetter("old", first.get(0).seq(), "before the upgrade", T);
    ReleasedSchema.retryLater(dsl, "old", first.get(2).seq(), "boom", T.plusSeconds(30));
    Result<?> before = rowsBefore007();

    OutboxSchema.migrate(db.dataSource());

    assertThat(TestChangelogs.applied(dsl)).anyMatch(id -> id.startsWith("007-parked-at-"));
    assertThat(rowsBefore007()).as("rows after the upgrade").isEqualTo(before);
    assertThat(dsl.fetchCount(OUTBOX_MESSAGE, OUTBOX_MESSAGE.PARKED_AT.isNotNull())).isZero();

    clock.advance(Duration.ofMinutes(2));
    OutboxAdmin admin = OutboxAdmin.create(dsl, clock);
    assertThat(admin.requeue(written.get(0))).isTrue();
    // Pending again from now, first of its aggregate. This release writes parked_at no more (the
    // claim's floor that read it went with PostgreSQL's event log, 009, on every database): the
    // requeue parks nothing, and the order below is what holds the aggregate back.
    MessageState requeued = admin.message(written.get(0)).orElseThrow();
    assertThat(requeued.status()).isEqualTo(MessageStatus.PENDING);
    assertThat(requeued.attempts()).isZero();
    assertThat(requeued.availableAt()).isEqualTo(clock.instant());
    assertThat(dsl.fetchValue(OUTBOX_MESSAGE.PARKED_AT, OUTBOX_MESSAGE.ID.eq(written.get(0))))
        .isNull();
    List<String> delivered = ReleasedSchema.deliver(dsl, clock, 9);
    assertThat(delivered).containsExactlyInAnyOrderElementsOf(written);
    for (int a = 0; a < 3; a++) {
      List<String> ofAggregate = List.of(written.get(a), written.get(a + 3), written.get(a + 6));
      assertThat(delivered.stream().filter(ofAggregate::contains).toList())
          .as("order of acct-" + a)
          .containsExactlyElementsOf(ofAggregate);
    }

    Result<?> upgraded = rowsBefore007();
    // 008, then 007; on PostgreSQL 009 (the event log) first.
    OutboxSchema.rollback(db.dataSource(), kind == TestDatabase.Kind.POSTGRES ? 3 : 2);

    assertThat(TestChangelogs.applied(dsl)).noneMatch(id -> id.startsWith("007-"));
    assertThat(rowsBefore007()).as("rows after the rollback").isEqualTo(upgraded);
    assertThatThrownBy(() -> dsl.select(OUTBOX_MESSAGE.PARKED_AT).from(OUTBOX_MESSAGE).fetch())
        .as("parked_at after the rollback")
        .isInstanceOf(DataAccessException.class);
    OutboxSchema.migrate(db.dataSource());
    assertThat(TestChangelogs.applied(dsl)).anyMatch(id -> id.startsWith("007-parked-at-"));
  }

  private Result<?> rowsBefore007() {
    return dsl.select(ReleasedSchema.outboxColumnsBefore007())
        .from(OUTBOX_MESSAGE)
        .orderBy(OUTBOX_MESSAGE.SEQ)
        .fetch();
  }
}
