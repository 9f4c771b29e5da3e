package dev.jooqoutbox.schema;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.jooqoutbox.OutboxSchema;
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
import org.jooq.Result;
import org.junit.jupiter.api.Test;

/**
 * An upgrade from the changelog released before {@code 005-outcome-unknown}: messages written
 * (pending, backing off after a failure, leased by a relay that died) before the change keep every
 * column they had, read as not outcome-unknown, and are all delivered after it, in order.
 */
abstract class OutcomeColumnsUpgradeContract extends EmptyDatabasePerTest {

  /** The changelog of the release before 005, on the test class path. */
  static final String RELEASED_CHANGELOG = "dev/jooqoutbox/schema/released-001-004.xml";

  static final Instant T = Instant.parse("2026-06-01T08:00:00Z");

  OutcomeColumnsUpgradeContract(TestDatabase.Kind kind) {
    super(kind);
  }

  @Test
  void messagesWrittenBeforeTheChangeAreDeliveredAfterIt() throws Exception {
    TestChangelogs.update(db.dataSource(), RELEASED_CHANGELOG);
    MutableClock clock = new MutableClock(T);
    // Rows of outbox_message, as the release wrote them: acct-0, acct-1, acct-2 in turn.
    List<String> written = ReleasedSchema.writeInTurn(dsl, clock, 6, 3);
    // One leased by a relay that then died, one backing off after a failed attempt.
    ReleasedSchema.leaseOldest(dsl, "acct-0", "died", T.plusSeconds(60));
    long failed = ReleasedSchema.leaseOldest(dsl, "acct-1", "failed", T.plusSeconds(60));
    ReleasedSchema.retryLater(dsl, "failed", failed, "boom", T.plusSeconds(30));
    Result<?> before =
        dsl.select(columnsBefore()).from(OUTBOX_MESSAGE).orderBy(OUTBOX_MESSAGE.SEQ).fetch();

    OutboxSchema.migrate(db.dataSource());

    List<String> applied = TestChangelogs.applied(dsl);
    assertThat(applied).anyMatch(id -> id.startsWith("005-outcome-unknown-"));
    assertThat(dsl.select(columnsBefore()).from(OUTBOX_MESSAGE).orderBy(OUTBOX_MESSAGE.SEQ).fetch())
        .as("rows after the upgrade")
        .isEqualTo(before);
    assertThat(
            dsl.fetchCount(
                OUTBOX_MESSAGE,
                OUTBOX_MESSAGE
                    .OUTCOME_UNKNOWN_AT
                    .isNotNull()
                    .or(OUTBOX_MESSAGE.REMOTE_REF.isNotNull())
                    .or(OUTBOX_MESSAGE.RESOLUTION.isNotNull())))
        .isZero();

    clock.advance(Duration.ofMinutes(2));
    List<String> delivered = new ArrayList<>();
    try (OutboxRelay relay =
        OutboxRelay.builder(dsl)
            .clock(clock)
            .listen(false)
            .maxRun(1)
            .handlerConcurrency(1)
            .handler("up", m -> delivered.add(m.id()))
            .build()) {
      for (int round = 0; round < 10 && delivered.size() < written.size(); round++) {
        relay.drainOnce(100);
      }
    }
    assertThat(delivered).containsExactlyInAnyOrderElementsOf(written);
    for (int a = 0; a < 3; a++) {
      List<String> ofAggregate = List.of(written.get(a), written.get(a + 3));
      assertThat(delivered.stream().filter(ofAggregate::contains).toList())
          .as("order of acct-" + a)
          .containsExactlyElementsOf(ofAggregate);
    }
    assertThat(dsl.fetchCount(OUTBOX_MESSAGE, OUTBOX_MESSAGE.SENT_AT.isNull())).isZero();
  }

  private static List<org.jooq.Field<?>> columnsBefore() {
    return ReleasedSchema.outboxColumnsBefore005();
  }
}
