package dev.jooqoutbox.internal.repository;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.jooq.impl.DSL.concat;
import static org.jooq.impl.DSL.generateSeries;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.select;
import static org.jooq.impl.DSL.val;

import dev.jooqoutbox.Outbox;
import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.testing.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jooq.Field;
import org.jooq.JSON;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The claim stays index-backed however many sent rows wait for the purge: on PostgreSQL its
 * candidate scan walks the partial pending index and probes the per-aggregate pending index, never
 * the sent rows. Asserted on the plan, not on time.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PostgresClaimPlanTest {

  private static final int SENT = 100_000;
  private static final int PENDING = 50;
  private static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");

  private TestDatabase db;
  private JooqOutboxRepository repository;

  @BeforeAll
  void fillTheOutbox() {
    db = TestDatabase.migrated(TestDatabase.Kind.POSTGRES);
    repository = new JooqOutboxRepository(db.dsl());
    // Statistics change only when a test runs ANALYZE, not when autovacuum happens to.
    db.dsl().execute("alter table {0} set (autovacuum_enabled = false)", OUTBOX_MESSAGE);
    var series = generateSeries(1, SENT).as("g", "i");
    Field<Integer> i = series.field("i", Integer.class);
    Instant sentAt = NOW.minus(Duration.ofHours(1));
    db.dsl()
        .insertInto(
            OUTBOX_MESSAGE,
            OUTBOX_MESSAGE.ID,
            OUTBOX_MESSAGE.AGGREGATE,
            OUTBOX_MESSAGE.TOPIC,
            OUTBOX_MESSAGE.PAYLOAD,
            OUTBOX_MESSAGE.CREATED_AT,
            OUTBOX_MESSAGE.AVAILABLE_AT,
            OUTBOX_MESSAGE.ATTEMPTS,
            OUTBOX_MESSAGE.SENT_AT)
        .select(
            select(
                    concat(inline("sent-"), i.cast(String.class)),
                    concat(inline("aggregate-"), i.mod(1000).cast(String.class)),
                    inline("t"),
                    inline(JSON.json("{\"sent\":true}")),
                    val(sentAt.minusSeconds(1), OUTBOX_MESSAGE.CREATED_AT),
                    val(sentAt.minusSeconds(1), OUTBOX_MESSAGE.AVAILABLE_AT),
                    inline(1),
                    val(sentAt, OUTBOX_MESSAGE.SENT_AT))
                .from(series))
        .execute();
    Outbox outbox = Outbox.builder(db.dsl()).notifyOnWrite(false).build();
    db.dsl()
        .transaction(
            tx -> {
              for (int n = 0; n < PENDING; n++) {
                outbox
                    .message("aggregate-" + (n % 10), "t", Map.of("n", n))
                    .availableAt(NOW.minusSeconds(10))
                    .write(tx.dsl());
              }
            });
  }

  @AfterAll
  void dropDatabase() {
    db.close();
  }

  @Test
  @Order(2)
  void claimWalksThePendingIndexAfterAnalyze() {
    db.dsl().execute("analyze {0}", OUTBOX_MESSAGE);

    assertIndexBacked(plan());
  }

  @Test
  @Order(1)
  void claimWalksThePendingIndexWithStatisticsFromAnEmptyTable() {
    // Right after the migration the planner believes the table empty; a claim that turned the
    // "no older pending message" probe into a scan of the whole index would pay for it per row.
    assertIndexBacked(plan());
  }

  @Test
  @Order(3)
  void claimTakesTheOldestPendingMessageOfEachAggregate() {
    List<OutboxMessage> claimed =
        repository.claim(Set.of("t"), 100, Duration.ofSeconds(30), "token", NOW);

    assertThat(claimed).hasSize(10);
    assertThat(claimed)
        .extracting(OutboxMessage::aggregate)
        .containsExactlyInAnyOrder(
            "aggregate-0",
            "aggregate-1",
            "aggregate-2",
            "aggregate-3",
            "aggregate-4",
            "aggregate-5",
            "aggregate-6",
            "aggregate-7",
            "aggregate-8",
            "aggregate-9");
    repository.release("token", claimed.stream().map(OutboxMessage::seq).toList());
  }

  @Test
  @Order(4)
  void headScanStepsThroughTheAggregateIndexWithoutReadingOtherRows() {
    // The claim's second pass: one or two probes of the (aggregate, seq) index per aggregate.
    String plan =
        db.dsl()
            .explain(OutboxDialect.of(db.dialect()).headSeqs(ClaimQueries.headScanBound(100)))
            .plan();

    assertThat(plan)
        .as("head scan plan:%n%s", plan)
        .contains("Recursive Union")
        .contains("ix_outbox_message_aggregate_pending on outbox_message f")
        .contains("ix_outbox_message_aggregate_pending on outbox_message h")
        .contains("Index Cond: (aggregate >= agg.aggregate)")
        .doesNotContain("Seq Scan")
        .doesNotContain("ix_outbox_message_pending on outbox_message h");
  }

  private String plan() {
    return db.dsl().explain(ClaimQueries.runs(Set.of("t"), 100, 1, Long.MIN_VALUE, NOW)).plan();
  }

  private static void assertIndexBacked(String plan) {
    assertThat(plan)
        .as("claim plan:%n%s", plan)
        .contains("ix_outbox_message_pending on outbox_message o")
        .contains("ix_outbox_message_aggregate_pending on outbox_message older")
        .containsPattern("Index Cond: \\(aggregate = c\\.aggregate\\)")
        .doesNotContain("Seq Scan")
        .doesNotContain("Join Filter");
  }
}
