package dev.jooqoutbox.schema;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static dev.jooqoutbox.schema.Tables.OUTBOX_PAUSED_TOPIC;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.jooqoutbox.Outbox;
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
import java.util.Map;
import java.util.Set;
import org.jooq.Result;
import org.jooq.exception.DataAccessException;
import org.junit.jupiter.api.Test;

/**
 * An upgrade from the changelog released before {@code 008-paused-topic}: every message written
 * before it (pending, leased by a relay that died) keeps every column and is delivered after it, in
 * order, with no topic paused until an operator pauses one; a pause then holds its topic back and a
 * resume lets it go; the rollback drops the table (every topic resumed) and keeps every message,
 * and a relay on the rolled-back schema still delivers.
 */
abstract class PausedTopicUpgradeContract extends EmptyDatabasePerTest {

  static final String RELEASED_CHANGELOG = "dev/jooqoutbox/schema/released-001-007.xml";
  static final Instant T = Instant.parse("2026-12-01T08:00:00Z");

  PausedTopicUpgradeContract(TestDatabase.Kind kind) {
    super(kind);
  }

  @Test
  void messagesWrittenBeforeTheChangeAreDeliveredAfterItAndTheRollbackKeepsThem() throws Exception {
    TestChangelogs.update(db.dataSource(), RELEASED_CHANGELOG);
    MutableClock clock = new MutableClock(T);
    Outbox outbox = Outbox.builder(dsl).clock(clock).notifyOnWrite(false).build();
    List<String> written = ReleasedSchema.writeInTurn(dsl, clock, 6, 2);
    // acct-0's first leased by a relay that died before the upgrade.
    new JooqOutboxRepository(dsl).claim(Set.of("up"), 1, Duration.ofSeconds(60), "old", T);
    Result<?> before = rows();

    OutboxSchema.migrate(db.dataSource());

    assertUpgraded();
    assertThat(rows()).as("rows after the upgrade").isEqualTo(before);
    assertThat(dsl.fetchCount(OUTBOX_PAUSED_TOPIC)).as("no topic paused").isZero();

    clock.advance(Duration.ofMinutes(2)); // the dead relay's lease has run out
    OutboxAdmin admin = OutboxAdmin.create(dsl, clock);
    assertThat(admin.pause("up")).isTrue();
    assertThat(ReleasedSchema.deliver(dsl, clock, 6)).as("paused").isEmpty();
    assertThat(admin.resume("up")).isTrue();
    List<String> delivered = ReleasedSchema.deliver(dsl, clock, 6);
    assertThat(delivered).containsExactlyInAnyOrderElementsOf(written);
    for (int a = 0; a < 2; a++) {
      List<String> ofAggregate = List.of(written.get(a), written.get(a + 2), written.get(a + 4));
      assertThat(delivered.stream().filter(ofAggregate::contains).toList())
          .as("order of acct-" + a)
          .containsExactlyElementsOf(ofAggregate);
    }

    admin.pause("up");
    Result<?> upgraded = rows();
    // 008; on PostgreSQL 009 (the event log) first.
    OutboxSchema.rollback(db.dataSource(), kind == TestDatabase.Kind.POSTGRES ? 2 : 1);

    assertThat(TestChangelogs.applied(dsl)).noneMatch(id -> id.startsWith("008-"));
    assertThat(rows()).as("rows after the rollback").isEqualTo(upgraded);
    assertThatThrownBy(() -> dsl.fetchCount(OUTBOX_PAUSED_TOPIC))
        .as("the table after the rollback")
        .isInstanceOf(DataAccessException.class);
    if (kind != TestDatabase.Kind.POSTGRES) {
      // A relay of this release on the rolled-back schema cannot read the pauses: it logs it and
      // delivers every topic.
      String after =
          dsl.transactionResult(tx -> outbox.write(tx.dsl(), "acct-0", "up", Map.of("n", 9)));
      assertThat(ReleasedSchema.deliver(dsl, clock, 1)).containsExactly(after);
      OutboxSchema.migrate(db.dataSource());
    } else {
      // On PostgreSQL this release writes and relays through the event log (009), which comes
      // after 008 and is rolled back before it: it does not run on the rolled-back schema. A
      // message written there as the release before 008 wrote it is kept by the upgrade again
      // and delivered after it: the pause made before the rollback is gone.
      String after = ReleasedSchema.writeInTurn(dsl, clock, 1, 1).get(0);
      OutboxSchema.migrate(db.dataSource());
      assertThat(ReleasedSchema.deliver(dsl, clock, 1)).containsExactly(after);
    }
    assertUpgraded();
    assertThat(dsl.fetchCount(OUTBOX_PAUSED_TOPIC)).as("no pause survives the rollback").isZero();
  }

  /** 008 is the last changeset applied; on PostgreSQL 009 (the event log) comes after it. */
  private void assertUpgraded() {
    List<String> applied = TestChangelogs.applied(dsl);
    assertThat(applied).anyMatch(id -> id.startsWith("008-paused-topic-"));
    assertThat(applied)
        .last()
        .asString()
        .startsWith(kind == TestDatabase.Kind.POSTGRES ? "009-event-log-" : "008-paused-topic-");
  }

  private Result<?> rows() {
    return dsl.selectFrom(OUTBOX_MESSAGE).orderBy(OUTBOX_MESSAGE.SEQ).fetch();
  }
}
