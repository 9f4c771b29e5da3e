package dev.jooqoutbox.internal.repository;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.jooqoutbox.testing.TestDatabase;
import java.util.List;
import java.util.stream.Collectors;
import org.jooq.Query;
import org.jooq.Record;
import org.jooq.Result;
import org.jooq.Select;

/**
 * {@link ClaimPlanContract} on MariaDB: 200,000 sent rows, 300,000 pending, 100,000 of them
 * drained. MariaDB has no partial indexes: the pending index leads with (sent_at, dead_at), so the
 * pending rows are one range of it in seq order, and the window must read that range from the floor
 * without a sort. Checked on {@code EXPLAIN}'s rows, one per table read.
 */
class MariaDbClaimPlanTest extends ClaimPlanContract {

  MariaDbClaimPlanTest() {
    super(TestDatabase.Kind.MARIADB, 200_000, 300_000, 100_000);
  }

  @Override
  void analyze() {
    // Plain SQL: jOOQ has no ANALYZE TABLE statement.
    dsl.execute("analyze table {0}", OUTBOX_MESSAGE);
  }

  @Override
  void assertIndexBacked(long floor) {
    for (int maxRun : List.of(1, 5)) {
      Result<Record> runs = explain(WindowRuns.runs(dialect(), TOPICS, 100, maxRun, floor, NOW));
      // The window: a range of the pending index from the floor, read in its order (no sort).
      assertThat(row(runs, "o"))
          .as("window row in:%n%s", runs)
          .contains("key=ix_outbox_message_pending")
          .containsPattern("type=(range|ref)")
          .doesNotContain("filesort");
      // The head probe: one descent of the (aggregate, sent_at, dead_at, seq) index.
      assertThat(row(runs, "older"))
          .as("head probe row in:%n%s", runs)
          .contains("key=ix_outbox_message_aggregate_pending")
          .doesNotContain("filesort");
      assertNoFullScanOfTheTable(runs);
    }
    // Without a floor the window computes no first seq: on MariaDB that window function cost the
    // claim a third of its rate (WindowRuns).
    assertThat(dsl.render(WindowRuns.runs(dialect(), TOPICS, 100, 5, floor, NOW)))
        .containsOnlyOnce(" over ()");
    // The lease: the named rows, by seq (the primary key, or an index whose other columns are
    // fixed by the readiness rule): a range of three lookups.
    Result<Record> lease =
        explain(ClaimQueries.readyAmong(List.of(floor, floor + 1, floor + 2), TOPICS, 3, NOW));
    assertThat(row(lease, "o"))
        .as("lease in:%n%s", lease)
        .contains("type=range")
        .contains("rows=3 ");
    // The second pass: a loose index scan, one step per aggregate.
    Result<Record> heads =
        explain(OutboxDialect.of(db.dialect()).headSeqs(ClaimQueries.headScanBound(100)));
    assertThat(row(heads, "h"))
        .as("head scan in:%n%s", heads)
        .contains("key=ix_outbox_message_aggregate_pending")
        .contains("Using index for group-by");
    // The heartbeat: the leases of the rows in flight, by seq, whatever the backlog.
    Result<Record> extension =
        explain(
            MessageSettler.leaseExtension(
                dsl, List.of("token"), List.of(floor, floor + 1, floor + 2), NOW));
    assertThat(row(extension, "outbox_message"))
        .as("lease extension in:%n%s", extension)
        // by seq: the primary key, or an index whose leading columns the statement fixes
        // (dead_at IS NULL); a range of three lookups either way
        .contains("type=range")
        .contains("rows=3 ");
    // The floor's refresh: the first entry of the pending range, and the last primary key.
    Result<Record> oldest = explain(ClaimQueries.oldestPendingOrNext(dialect()));
    assertThat(row(oldest, "p"))
        .as("floor refresh in:%n%s", oldest)
        .contains("key=ix_outbox_message_pending");
    assertNoFullScanOfTheTable(oldest);
    // The oldest-pending gauge: the same first entry.
    Result<Record> gauge = explain(BacklogQueries.oldestPendingCreatedAt(dialect()));
    assertThat(row(gauge, "p"))
        .as("oldest pending in:%n%s", gauge)
        .contains("key=ix_outbox_message_pending")
        .doesNotContain("filesort");
    assertNoFullScanOfTheTable(gauge);
    // Reconciliation and the unknown gauge read the unknown rows' range of their index only.
    for (Select<?> unknown :
        List.<Select<?>>of(
            OutcomeStore.dueSeqs(TOPICS, 100, NOW), OutcomeStore.unknownSeqsAfter(0))) {
      Result<Record> plan = explain(unknown);
      assertThat(row(plan, "outbox_message"))
          .as("unknown plan:%n%s", plan)
          .contains("key=ix_outbox_message_unknown");
      assertNoFullScanOfTheTable(plan);
    }
  }

  private Result<Record> explain(Query query) {
    // Plain SQL: jOOQ's explain() returns MariaDB's rows as one text; the rows name each table.
    return dsl.fetch("explain {0}", query);
  }

  /** The EXPLAIN row of table alias {@code table}, as "table=… type=… key=… Extra=…". */
  private static String row(Result<Record> plan, String table) {
    return plan.stream()
        .filter(r -> table.equals(r.get("table", String.class)))
        .map(MariaDbClaimPlanTest::describe)
        .findFirst()
        .orElse("no row for table " + table);
  }

  private static void assertNoFullScanOfTheTable(Result<Record> plan) {
    // Type ALL is a full scan; only the small derived tables of the query may be read that way.
    List<String> fullScans =
        plan.stream()
            .filter(r -> "ALL".equals(r.get("type", String.class)))
            .map(r -> r.get("table", String.class))
            .filter(table -> table == null || !table.startsWith("<derived"))
            .collect(Collectors.toList());
    assertThat(fullScans).as("full scans in:%n%s", plan).isEmpty();
  }

  private static String describe(Record r) {
    return "table="
        + r.get("table")
        + " type="
        + r.get("type")
        + " key="
        + r.get("key")
        + " rows="
        + r.get("rows")
        + " Extra="
        + r.get("Extra");
  }
}
