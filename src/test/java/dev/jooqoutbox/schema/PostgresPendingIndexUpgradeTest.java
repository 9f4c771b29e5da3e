package dev.jooqoutbox.schema;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.assertj.core.api.Assertions.assertThat;

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
import org.junit.jupiter.api.Test;

/**
 * An upgrade from the changelog released before {@code 006-pending-index-order} (PostgreSQL only):
 * sent, dead, leased, backing-off and pending messages keep every column; the pending index becomes
 * (sent_at, dead_at, seq) over every row and the partial sent_at index is gone; the purge and the
 * relay work on the new index; the rollback restores both old indexes and keeps every row.
 */
class PostgresPendingIndexUpgradeTest extends EmptyDatabasePerTest {

  static final String RELEASED_CHANGELOG = "dev/jooqoutbox/schema/released-001-005.xml";
  static final Instant T = Instant.parse("2026-06-01T08:00:00Z");

  /** The columns this test compares: those of the release before 006, and 006 adds none. */
  static final List<org.jooq.Field<?>> BEFORE_007 = ReleasedSchema.outboxColumnsBefore007();

  static final String NEW_PENDING =
      "CREATE INDEX ix_outbox_message_pending ON %s.outbox_message USING btree (sent_at, dead_at,"
          + " seq)";
  static final String OLD_PENDING =
      "CREATE INDEX ix_outbox_message_pending ON %s.outbox_message USING btree (seq) WHERE ((sent_at"
          + " IS NULL) AND (dead_at IS NULL))";
  static final String OLD_SENT_AT =
      "CREATE INDEX ix_outbox_message_sent_at ON %s.outbox_message USING btree (sent_at) WHERE"
          + " (sent_at IS NOT NULL)";

  PostgresPendingIndexUpgradeTest() {
    super(TestDatabase.Kind.POSTGRES);
  }

  @Test
  void messagesWrittenBeforeTheChangeArePurgedAndDeliveredAfterItAndTheRollbackKeepsThem()
      throws Exception {
    TestChangelogs.update(db.dataSource(), RELEASED_CHANGELOG);
    assertThat(indexDefinitions()).contains(format(OLD_PENDING), format(OLD_SENT_AT));
    MutableClock clock = new MutableClock(T);
    List<String> written = ReleasedSchema.writeInTurn(dsl, clock, 9, 3);
    // Two sent a day ago, one dead, one leased by a relay that died, one backing off.
    JooqOutboxRepository repository = new JooqOutboxRepository(dsl);
    var first = repository.claim(Set.of("up"), 3, Duration.ofSeconds(60), "old", T);
    repository.markSent(
        "old", List.of(first.get(0).seq(), first.get(1).seq()), T.minusSeconds(86_400));
    repository.deadLetter("old", first.get(2).seq(), "before the upgrade", T);
    // A relay of its own, as the relay that died was: a claimer that has claimed before may read
    // parked_at, which this schema does not have yet.
    var next =
        new JooqOutboxRepository(dsl).claim(Set.of("up"), 2, Duration.ofSeconds(60), "died", T);
    ReleasedSchema.retryLater(dsl, "died", next.get(1).seq(), "boom", T.plusSeconds(30));
    Result<?> before =
        dsl.select(BEFORE_007).from(OUTBOX_MESSAGE).orderBy(OUTBOX_MESSAGE.SEQ).fetch();

    OutboxSchema.migrate(db.dataSource());

    assertThat(TestChangelogs.applied(dsl))
        .endsWith(
            "006-pending-index-order-postgresql",
            "007-parked-at-postgresql",
            "008-paused-topic-postgresql",
            "009-event-log-postgresql");
    assertThat(indexDefinitions())
        .contains(format(NEW_PENDING))
        .doesNotContain(format(OLD_PENDING), format(OLD_SENT_AT))
        .noneMatch(definition -> definition.contains("ix_outbox_message_sent_at"));
    assertThat(dsl.select(BEFORE_007).from(OUTBOX_MESSAGE).orderBy(OUTBOX_MESSAGE.SEQ).fetch())
        .as("rows after the upgrade")
        .isEqualTo(before);

    clock.advance(Duration.ofMinutes(2));
    OutboxAdmin admin = OutboxAdmin.create(dsl, clock);
    assertThat(admin.purge(Duration.ofHours(1)).outboxDeleted()).as("sent a day ago").isEqualTo(2);
    List<String> delivered = ReleasedSchema.deliver(dsl, clock, 6);
    assertThat(delivered).containsExactlyInAnyOrderElementsOf(written.subList(3, 9));
    for (int a = 0; a < 3; a++) {
      List<String> ofAggregate = List.of(written.get(a + 3), written.get(a + 6));
      assertThat(delivered.stream().filter(ofAggregate::contains).toList())
          .as("order of acct-" + a)
          .containsExactlyElementsOf(ofAggregate);
    }

    Result<?> upgraded =
        dsl.select(BEFORE_007).from(OUTBOX_MESSAGE).orderBy(OUTBOX_MESSAGE.SEQ).fetch();
    OutboxSchema.rollback(db.dataSource(), 4); // 009, 008, 007, then 006

    assertThat(TestChangelogs.applied(dsl)).doesNotContain("006-pending-index-order-postgresql");
    assertThat(indexDefinitions())
        .contains(format(OLD_PENDING), format(OLD_SENT_AT))
        .doesNotContain(format(NEW_PENDING));
    assertThat(dsl.select(BEFORE_007).from(OUTBOX_MESSAGE).orderBy(OUTBOX_MESSAGE.SEQ).fetch())
        .as("rows after the rollback")
        .isEqualTo(upgraded);
  }

  private String format(String definition) {
    return String.format(definition, db.name());
  }

  private List<String> indexDefinitions() {
    return dsl.fetch(
            "select indexdef from pg_indexes where schemaname = current_schema()"
                + " and tablename = 'outbox_message'")
        .getValues(0, String.class);
  }
}
