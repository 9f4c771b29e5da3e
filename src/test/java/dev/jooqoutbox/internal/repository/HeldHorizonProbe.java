package dev.jooqoutbox.internal.repository;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jooq.DSLContext;
import org.jooq.Record2;
import org.jooq.impl.DSL;

/**
 * What the PostgreSQL tests under a held xmin horizon share: holding it, and reading how many index
 * entries the outbox's indexes returned ({@code idx_tup_read}: entries returned by index scans,
 * those of dead versions included), counts rather than times.
 */
final class HeldHorizonProbe {

  private HeldHorizonProbe() {}

  /** Opens a snapshot on {@code holder} and keeps it: the horizon cannot pass it. */
  static void holdHorizon(DSLContext dsl, Connection holder) throws SQLException {
    holder.setAutoCommit(false);
    holder.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
    try (Statement s = holder.createStatement()) {
      s.execute("select count(*) from pg_class");
    }
    Long xmin =
        dsl.fetchValue(
            DSL.field(
                "(select max(age(backend_xmin)) from pg_stat_activity"
                    + " where backend_xmin is not null)",
                Long.class));
    assertThat(xmin).as("a backend holds the horizon").isNotNull();
  }

  /** idx_tup_read of each index of the outbox table, once every backend has reported. */
  static Map<String, Long> indexReads(DSLContext dsl) throws InterruptedException {
    // Backends report their statistics within a second of going idle (PostgreSQL 15+).
    Thread.sleep(1_500);
    Map<String, Long> reads = new LinkedHashMap<>();
    // Plain SQL: the statistics views are not in the generated classes.
    for (Record2<String, Long> r :
        dsl.resultQuery(
                "select indexrelname::text, idx_tup_read from pg_stat_user_indexes"
                    + " where relid = {0}::regclass order by indexrelname",
                DSL.inline(OUTBOX_MESSAGE.getName()))
            .coerce(DSL.field("i", String.class), DSL.field("n", Long.class))
            .fetch()) {
      reads.put(r.value1(), r.value2());
    }
    return reads;
  }

  /** The entries all indexes returned between {@code before} and {@code after}. */
  static long readBetween(Map<String, Long> before, Map<String, Long> after) {
    long total = 0;
    for (var e : after.entrySet()) {
      total += e.getValue() - before.getOrDefault(e.getKey(), 0L);
    }
    return total;
  }
}
