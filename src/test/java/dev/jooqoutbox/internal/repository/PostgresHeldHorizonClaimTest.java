package dev.jooqoutbox.internal.repository;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.testing.DatabaseFixture;
import dev.jooqoutbox.testing.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jooq.Record2;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;

/**
 * The claim on PostgreSQL while another session holds the xmin horizon (a {@code REPEATABLE READ}
 * transaction left open, as a long report, {@code pg_dump} or an idle session in a transaction
 * does): no row version can be removed then, and no index entry of one marked dead, so every
 * statement that walks an index range holding the versions of delivered messages reads more and
 * more of them. The claim's statements must start past what is known delivered: the index entries
 * it reads per message delivered stay flat while the history grows. Counts, not times: {@code
 * idx_tup_read} of the outbox's indexes (entries returned by index scans, those of dead versions
 * included), as PostgreSQL's statistics report them.
 */
class PostgresHeldHorizonClaimTest extends DatabaseFixture {

  private static final Set<String> TOPICS = Set.of("t");
  private static final int ROUNDS = 6;
  private static final int PER_ROUND = 4_000;
  private static final int AGGREGATES = 200;

  PostgresHeldHorizonClaimTest() {
    super(TestDatabase.Kind.POSTGRES);
  }

  @Test
  void theIndexEntriesAClaimReadsPerMessageDoNotGrowWithTheHistory() throws Exception {
    var dsl = db.dsl();
    dsl.execute("alter table {0} set (autovacuum_enabled = false)", OUTBOX_MESSAGE);
    List<Double> perMessage = new ArrayList<>();
    try (Connection holder = db.dataSource().getConnection()) {
      holdHorizon(holder);
      for (int round = 0; round < ROUNDS; round++) {
        DeepOutbox.insert(dsl, round * PER_ROUND, PER_ROUND, AGGREGATES, false);
        Map<String, Long> before = indexReads();
        int delivered = drain();
        Map<String, Long> after = indexReads();
        assertThat(delivered).isEqualTo(PER_ROUND);
        long total = 0;
        StringBuilder byIndex = new StringBuilder();
        for (var e : after.entrySet()) {
          long read = e.getValue() - before.getOrDefault(e.getKey(), 0L);
          total += read;
          byIndex.append(String.format(" %s=%.1f", e.getKey(), (double) read / delivered));
        }
        perMessage.add((double) total / delivered);
        System.out.printf(
            "held horizon, round %d (history %,d): %.1f index entries read per message:%s%n",
            round, (round + 1) * PER_ROUND, (double) total / delivered, byIndex);
      }
      holder.rollback();
    }
    // The first round's reads are the start; the last round runs over five times the history.
    assertThat(perMessage.get(ROUNDS - 1))
        .as("entries read per message by round: %s", perMessage)
        .isLessThan(2 * Math.max(perMessage.get(0), 10.0));
  }

  /** Claims and marks sent until a claim comes up empty; how many were delivered. */
  private int drain() {
    int delivered = 0;
    while (true) {
      List<OutboxMessage> batch =
          repository.claim(TOPICS, 100, 10, Duration.ofSeconds(30), "r", DeepOutbox.NOW);
      if (batch.isEmpty()) {
        return delivered;
      }
      delivered +=
          repository.markSent("r", batch.stream().map(OutboxMessage::seq).toList(), DeepOutbox.NOW);
    }
  }

  /** Opens a snapshot on {@code holder} and keeps it: the horizon cannot pass it. */
  private void holdHorizon(Connection holder) throws SQLException {
    holder.setAutoCommit(false);
    holder.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
    try (Statement s = holder.createStatement()) {
      s.execute("select count(*) from pg_class");
    }
    Long xmin =
        db.dsl()
            .fetchValue(
                DSL.field(
                    "(select max(age(backend_xmin)) from pg_stat_activity"
                        + " where backend_xmin is not null)",
                    Long.class));
    assertThat(xmin).as("a backend holds the horizon").isNotNull();
  }

  /** idx_tup_read of each index of the outbox table, once every backend has reported. */
  private Map<String, Long> indexReads() throws InterruptedException {
    // Backends report their statistics within a second of going idle (PostgreSQL 15+).
    Thread.sleep(1_500);
    Map<String, Long> reads = new LinkedHashMap<>();
    // Plain SQL: the statistics views are not in the generated classes.
    for (Record2<String, Long> r :
        db.dsl()
            .resultQuery(
                "select indexrelname::text, idx_tup_read from pg_stat_user_indexes"
                    + " where relid = {0}::regclass order by indexrelname",
                DSL.inline(OUTBOX_MESSAGE.getName()))
            .coerce(DSL.field("i", String.class), DSL.field("n", Long.class))
            .fetch()) {
      reads.put(r.value1(), r.value2());
    }
    return reads;
  }
}
