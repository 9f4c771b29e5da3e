package dev.jooqoutbox.internal.repository;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jooqoutbox.testing.TestDatabase;
import java.util.List;
import org.jooq.Query;

/**
 * {@link ClaimPlanContract} on SQLite: 300,000 sent rows, 400,000 pending, 200,000 of them drained.
 * SQLite's partial indexes drop a row's entry when it is marked sent. Checked on {@code EXPLAIN
 * QUERY PLAN}.
 */
class SqliteClaimPlanTest extends ClaimPlanContract {

  SqliteClaimPlanTest() {
    super(TestDatabase.Kind.SQLITE, 300_000, 400_000, 200_000);
  }

  @Override
  void analyze() {
    dsl.execute("analyze");
  }

  @Override
  void assertIndexBacked(long floor) {
    for (int maxRun : List.of(1, 5)) {
      String runs = plan(WindowRuns.runs(dialect(), TOPICS, 100, maxRun, floor, NOW));
      assertThat(runs)
          .as("runs plan:%n%s", runs)
          // The window: the pending index from the floor, in its order.
          .contains("SEARCH o USING INDEX ix_outbox_message_pending (seq>?)")
          // The head probe: the first entry of the aggregate in the (aggregate, seq) index, read
          // in its order (no temporary b-tree after it).
          .containsPattern(
              "CORRELATED SCALAR SUBQUERY \\d+\\n"
                  + "SEARCH older USING (COVERING )?INDEX ix_outbox_message_aggregate_pending"
                  + " \\(aggregate=\\?\\)$")
          .doesNotContain("SCAN o")
          .doesNotContain("SCAN older")
          .doesNotContain("SCAN outbox_message");
    }
    String lease =
        plan(ClaimQueries.readyAmong(List.of(floor, floor + 1, floor + 2), TOPICS, 3, NOW));
    assertThat(lease)
        .as("lease plan:%n%s", lease)
        .containsPattern(
            "SEARCH o USING (INTEGER PRIMARY KEY|INDEX ix_outbox_message_pending)"
                + " \\((rowid|seq)=\\?\\)")
        .doesNotContain("SCAN o");
    String heads = plan(OutboxDialect.of(db.dialect()).headSeqs(ClaimQueries.headScanBound(100)));
    assertThat(heads)
        .as("head scan plan:%n%s", heads)
        .contains("ix_outbox_message_aggregate_pending (aggregate>?)")
        .contains("ix_outbox_message_aggregate_pending (aggregate=?)")
        .doesNotContain("SCAN outbox_message")
        .doesNotContain("SCAN f")
        .doesNotContain("SCAN n")
        .doesNotContain("SCAN h");
    // The heartbeat: the leases of the rows in flight, by seq, whatever the backlog.
    String extension =
        plan(
            MessageSettler.leaseExtension(
                dsl, List.of("token"), List.of(floor, floor + 1, floor + 2), NOW));
    assertThat(extension)
        .as("lease extension plan:%n%s", extension)
        .containsPattern(
            "SEARCH outbox_message USING (INTEGER PRIMARY KEY|INDEX \\w+) \\((rowid|seq)=\\?\\)")
        .doesNotContain("SCAN outbox_message");
    String oldest = plan(ClaimQueries.oldestPendingOrNext(dialect()));
    assertThat(oldest)
        .as("floor refresh plan:%n%s", oldest)
        // The first entry of the pending index (a scan of it, stopped by LIMIT 1), and the
        // last rowid ("SEARCH a": max(rowid) reads the last entry only).
        .containsPattern("SCAN p USING (COVERING )?INDEX ix_outbox_message_pending")
        .containsPattern("SEARCH a$")
        .doesNotContain("SCAN a");
    // The oldest-pending gauge: the same first entry.
    String gauge = plan(BacklogQueries.oldestPendingCreatedAt(dialect()));
    assertThat(gauge)
        .as("oldest pending plan:%n%s", gauge)
        .containsPattern("SCAN p USING INDEX ix_outbox_message_pending")
        .doesNotContain("TEMP B-TREE");
    // Reconciliation and the unknown gauge read the (partial) unknown index only.
    for (String unknown :
        List.of(
            plan(OutcomeStore.dueSeqs(TOPICS, 100, NOW)), plan(OutcomeStore.unknownSeqsAfter(0)))) {
      assertThat(unknown)
          .as("unknown plan:%n%s", unknown)
          .contains("ix_outbox_message_unknown")
          .doesNotContain("SCAN outbox_message\n")
          .doesNotContainPattern("SCAN outbox_message$");
    }
  }

  /** EXPLAIN QUERY PLAN's details, one line each, indented by depth. */
  private String plan(Query query) {
    // Plain SQL: jOOQ's explain() does not give SQLite's query plan.
    return String.join(
        "\n", dsl.fetch("explain query plan {0}", query).getValues("detail", String.class));
  }
}
