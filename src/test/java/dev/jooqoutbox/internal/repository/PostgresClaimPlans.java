package dev.jooqoutbox.internal.repository;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.jooqoutbox.testing.TestDatabase;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.jooq.DSLContext;
import org.jooq.Query;
import org.jooq.conf.ParamType;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * {@link ClaimPlanContract}'s checks on PostgreSQL, for the tables of {@link PostgresClaimPlanTest}
 * and {@link PostgresFreshDrainClaimPlanTest}: autovacuum off for the table (as on the benchmark
 * server), so the drained rows' entries stay in the indexes. Also: what the floor saves in buffers,
 * and the generic plans PostgreSQL may cache for prepared statements.
 */
abstract class PostgresClaimPlans extends ClaimPlanContract {

  PostgresClaimPlans(int sent, int pending, int drained, int aggregates) {
    super(TestDatabase.Kind.POSTGRES, sent, pending, drained, aggregates);
  }

  @Override
  void prepareTable() {
    // Statistics change only when a test runs ANALYZE, not when autovacuum happens to.
    dsl.execute("alter table {0} set (autovacuum_enabled = false)", OUTBOX_MESSAGE);
  }

  @Override
  void analyze() {
    dsl.execute("analyze {0}", OUTBOX_MESSAGE);
  }

  @Test
  @Order(3)
  void theWindowFromTheFloorReadsAFewPagesWhereOneFromTheStartReadsEveryDrainedEntry() {
    long floor = DeepOutbox.floor(dsl);
    // A first read from the start marks the drained rows' entries dead, as a drain's claims do.
    explainAnalyze(WindowRuns.runs(dialect(), TOPICS, 100, 5, Long.MIN_VALUE, NOW));
    int fromTheStart = windowBuffers(Long.MIN_VALUE);
    int fromTheFloor = windowBuffers(floor);

    System.out.printf(
        "PostgreSQL window of 400 after a drain of %,d: %d buffers from the floor, %d from the"
            + " start%n",
        drained, fromTheFloor, fromTheStart);
    // 400 entries and their rows: a few index pages and the heap pages of the rows. From the
    // start, the scan steps over the entries of every drained row first (marked dead by the first
    // read, but still on their pages).
    assertThat(fromTheFloor).as("buffers of the window from the floor").isLessThan(100);
    assertThat(fromTheStart)
        .as("buffers of the window from the start")
        .isGreaterThan(10 * fromTheFloor);
  }

  @Test
  @Order(5)
  void aPurgeThatKeepsUpReadsTheRangeOfOldSentRows() {
    // After an analyze (the contract's Order 4), no row older than the cutoff: the range
    // sent_at < cutoff of the pending index (sent_at, dead_at, seq), which replaced the partial
    // sent_at index, not a scan of the table.
    // Both reads of a batch, the first and those after, stay on the index in its order: a
    // range bounded on both sides was read whole into a sort (a bitmap scan).
    Instant cutoff = NOW.minus(Duration.ofHours(2));
    for (Instant past : Arrays.asList(null, cutoff.minus(Duration.ofDays(1)))) {
      String purge =
          dsl.explain(
                  PurgeBatches.read(
                      dsl, OUTBOX_MESSAGE, OUTBOX_MESSAGE.SENT_AT, cutoff, past, 1000))
              .plan();
      assertThat(purge)
          .as("purge plan:%n%s", purge)
          .contains("using ix_outbox_message_pending on outbox_message")
          .containsPattern("Index Cond: \\(sent_at [<>] ")
          .doesNotContain("Seq Scan")
          .doesNotContain("Bitmap")
          .doesNotContain("Sort");
    }
  }

  @Test
  @Order(5)
  void genericPlansOfThePreparedStatementsAreIndexBackedToo() {
    long floor = DeepOutbox.floor(dsl);
    assertRunsPlan(genericPlan(WindowRuns.runs(dialect(), TOPICS, 100, 5, floor, NOW)));
    assertThat(genericPlan(ClaimQueries.readyAmong(List.of(floor, floor + 1), TOPICS, 2, NOW)))
        .containsPattern("Index Cond: \\(seq = ANY \\(ARRAY\\[\\$\\d+, \\$\\d+\\]\\)\\)")
        .doesNotContain("Seq Scan");
  }

  @Test
  @Order(7)
  void headScanStepsThroughTheAggregateIndexWithoutReadingOtherRows() {
    // The claim's second pass: one or two probes of the (aggregate, seq) index per aggregate.
    String plan =
        dsl.explain(OutboxDialect.of(db.dialect()).headSeqs(ClaimQueries.headScanBound(100)))
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

  // ---------------------------------------------------------------- checks

  @Override
  void assertIndexBacked(long floor) {
    assertRunsPlan(dsl.explain(WindowRuns.runs(dialect(), TOPICS, 100, 1, floor, NOW)).plan());
    assertRunsPlan(dsl.explain(WindowRuns.runs(dialect(), TOPICS, 100, 5, floor, NOW)).plan());

    // The lease: the rows the runs named, found by seq (in the primary key or the pending index,
    // both keyed by seq) and locked skipping locked ones.
    var ready = ClaimQueries.readyAmong(List.of(floor, floor + 1, floor + 2), TOPICS, 3, NOW);
    String lease =
        dsl.explain(
                ClaimQueries.takeLease(
                        dsl,
                        OUTBOX_MESSAGE.SEQ.in(ready.forUpdate().skipLocked()),
                        new OutboxDialect.Lease("token", NOW.plusSeconds(30)))
                    .returning(MessageRows.FIELDS))
            .plan();
    assertThat(lease)
        .as("lease plan:%n%s", lease)
        .contains("LockRows")
        .contains("Index Cond: (seq = ANY (")
        .doesNotContain("Seq Scan")
        // A bitmap of the primary key's entries for those seqs is the same lookups (chosen on
        // a table without statistics); one of another index would read more.
        .doesNotContainPattern("Bitmap Index Scan on (?!pk_outbox_message)");

    // The heartbeat: the leases of the rows in flight, by seq, whatever the backlog.
    String extension =
        dsl.explain(
                MessageSettler.leaseExtension(
                    dsl, List.of("token"), List.of(floor, floor + 1, floor + 2), NOW))
            .plan();
    assertThat(extension)
        .as("lease extension plan:%n%s", extension)
        .contains("Index Cond: (seq = ANY (")
        .doesNotContain("Seq Scan");

    // The floor's refresh: the first entry of the pending index, and the newest primary key.
    String oldest = dsl.explain(ClaimQueries.oldestPendingOrNext(dialect())).plan();
    assertThat(oldest)
        .as("floor refresh plan:%n%s", oldest)
        .contains("using ix_outbox_message_pending on outbox_message p")
        .contains("Index Only Scan Backward using pk_outbox_message on outbox_message a")
        .doesNotContain("Seq Scan");
    // The oldest-pending gauge: the same first entry.
    String gauge = dsl.explain(BacklogQueries.oldestPendingCreatedAt(dialect())).plan();
    assertThat(gauge)
        .as("oldest pending plan:%n%s", gauge)
        .contains("Index Scan using ix_outbox_message_pending on outbox_message p")
        .doesNotContain("pk_outbox_message")
        .doesNotContain("Seq Scan");

    // Reconciliation and the unknown gauge read the (partial) unknown index only.
    for (String unknown :
        List.of(
            dsl.explain(OutcomeStore.dueSeqs(TOPICS, 100, NOW)).plan(),
            dsl.explain(OutcomeStore.unknownSeqsAfter(0)).plan())) {
      assertThat(unknown)
          .as("unknown plan:%n%s", unknown)
          .contains("ix_outbox_message_unknown")
          .doesNotContain("Seq Scan");
    }
  }

  private static void assertRunsPlan(String plan) {
    assertThat(plan)
        .as("runs plan:%n%s", plan)
        // The window: the (sent_at, dead_at, seq) index from the floor, in seq order, never the
        // primary key; the
        // scan starts at (NULL, NULL, floor), not at the index's first entry.
        .contains("Index Scan using ix_outbox_message_pending on outbox_message o")
        .contains("Index Cond: ((sent_at IS NULL) AND (dead_at IS NULL) AND (seq >= ")
        // The head probe: one descent of the (aggregate, seq) index per candidate, run above the
        // sort by seq, so it stops when the limit is reached.
        .contains("ix_outbox_message_aggregate_pending on outbox_message older")
        .contains("Index Cond: (aggregate >= c.aggregate)")
        .containsPattern("Subquery Scan on c[^\\n]*\\n[|\\s]*Filter: \\(c\\.first_seq = \\(SubPlan")
        .doesNotContain("Seq Scan")
        .doesNotContain("Bitmap")
        .doesNotContain("pk_outbox_message");
  }

  /** The buffers the window's index scan touched when run from {@code floor}. */
  private int windowBuffers(long floor) {
    String plan = explainAnalyze(WindowRuns.runs(dialect(), TOPICS, 100, 5, floor, NOW));
    Matcher m =
        Pattern.compile(
                "Index Scan using ix_outbox_message_pending on outbox_message o[^\\n]*\\n"
                    + "(?:[^\\n]*\\n)*?\\s*Buffers: shared hit=(\\d+)(?: read=(\\d+))?")
            .matcher(plan);
    assertThat(m.find()).as("buffers of the window in:%n%s", plan).isTrue();
    return Integer.parseInt(m.group(1)) + (m.group(2) == null ? 0 : Integer.parseInt(m.group(2)));
  }

  /** EXPLAIN ANALYZE: runs the select (read only) and reports what it read. */
  private String explainAnalyze(Query query) {
    // Plain SQL: jOOQ's explain() has no ANALYZE or BUFFERS option.
    return String.join(
        "\n", dsl.fetch("explain (analyze, buffers, costs off) {0}", query).into(String.class));
  }

  /**
   * The plan PostgreSQL caches for {@code query} as a prepared statement once it stops planning per
   * execution: bind values unknown at planning. Plain SQL: jOOQ cannot say PREPARE or EXPLAIN
   * EXECUTE; the statement is rendered by jOOQ with numbered parameters.
   */
  private String genericPlan(Query query) {
    DSLContext numbered =
        DSL.using(
            db.dialect(),
            new Settings().withParamType(ParamType.NAMED).withRenderNamedParamPrefix("$"));
    String sql = numbered.renderNamedParams(query);
    // The bind values in the order of their numbers, written out by their own bindings.
    String args =
        numbered.extractParams(query).values().stream()
            .filter(p -> !p.isInline())
            .map(dsl::renderInlined)
            .collect(Collectors.joining(", "));
    return dsl.connectionResult(
        connection -> {
          try (Statement statement = connection.createStatement()) {
            statement.execute("set plan_cache_mode = force_generic_plan");
            statement.execute("prepare claim_plan as " + sql);
            StringBuilder plan = new StringBuilder();
            try (ResultSet rows =
                statement.executeQuery("explain (costs off) execute claim_plan(" + args + ")")) {
              while (rows.next()) {
                plan.append(rows.getString(1)).append('\n');
              }
            } finally {
              statement.execute("deallocate claim_plan");
              statement.execute("reset plan_cache_mode");
            }
            return plan.toString();
          }
        });
  }
}
