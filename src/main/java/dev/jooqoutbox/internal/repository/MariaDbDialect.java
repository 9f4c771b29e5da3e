package dev.jooqoutbox.internal.repository;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;

import dev.jooqoutbox.internal.naming.OutboxNaming;
import dev.jooqoutbox.schema.tables.OutboxMessageTable;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.InsertSetMoreStep;
import org.jooq.Record;
import org.jooq.Record1;
import org.jooq.ResultQuery;
import org.jooq.Select;
import org.jooq.SelectConditionStep;
import org.jooq.SelectForUpdateStep;
import org.jooq.Table;
import org.jooq.impl.DSL;

/**
 * MariaDB 10.6+ and MySQL 8: {@code SELECT ... FOR UPDATE SKIP LOCKED}, then {@code UPDATE} in the
 * same transaction. They have no {@code UPDATE ... RETURNING} (jOOQ would emulate it as an upsert,
 * which is not a claim), refuse {@code LIMIT} inside an {@code IN} subquery, and have no
 * notifications (relays poll).
 */
final class MariaDbDialect implements OutboxDialect {

  static final MariaDbDialect INSTANCE = new MariaDbDialect();

  private MariaDbDialect() {}

  @Override
  public <T> T claimTransaction(DSLContext dsl, Function<DSLContext, T> work) {
    return dsl.transactionResult(
        tx -> {
          // Read committed: no gap locks that would block concurrent writers' inserts. Plain SQL:
          // jOOQ has no statement for it. Without SESSION it applies to this transaction only, so
          // the pooled connection keeps its own level whatever the pool does on return.
          tx.dsl().execute("SET TRANSACTION ISOLATION LEVEL READ COMMITTED");
          return work.apply(tx.dsl());
        });
  }

  @Override
  public List<Record> lease(
      DSLContext tx, SelectForUpdateStep<Record1<Long>> candidates, Lease lease) {
    List<Long> seqs = tx.fetchValues(candidates.forUpdate().skipLocked());
    if (seqs.isEmpty()) {
      return new ArrayList<>();
    }
    ClaimQueries.takeLease(tx, OUTBOX_MESSAGE.SEQ.in(seqs), lease).execute();
    return new ArrayList<>(
        tx.select(MessageRows.FIELDS)
            .from(OUTBOX_MESSAGE)
            .where(OUTBOX_MESSAGE.SEQ.in(seqs))
            .fetch());
  }

  @Override
  public Select<Record1<Long>> headSeqs(int aggregates) {
    // They cannot seek a correlated range in the recursive form and would scan the index once per
    // aggregate; a loose index scan of (aggregate, sent_at, dead_at, seq) visits each once.
    // The LIMIT goes outside, on the grouped heads as a derived table: with it on the grouping
    // itself, MariaDB 11.4 (not 10.11) gave up the loose scan for a scan of an index in group order
    // that stops after the limit's groups, reading every entry of theirs, sent ones too (50,000 for
    // 100 heads, and without statistics of the drain a range of the dead-letter index with a
    // filesort: 497,162 rows estimated, 2 s; MariaDbClaimPlanTest on the embedded 11.4.5). The
    // derived table costs one seek per aggregate with pending messages, never a sent row, and runs
    // only when the window's pass did not fill the batch.
    Table<Record1<Long>> heads = HeadQueries.groupedHeads().asTable("g");
    return DSL.select(heads.field(0, Long.class)).from(heads).limit(aggregates);
  }

  @Override
  public Table<?> pendingInSeqOrder(OutboxMessageTable t) {
    // Without the hint MariaDB 10.11 picked the dead-letter index (dead_at, seq): dead_at IS NULL
    // holds for sent rows too, so the window walked every sent row from the index's first entry
    // (247,961 rows estimated under 200,000 sent and 100,000 drained; MariaDbClaimPlanTest).
    // Plain SQL for what t.forceIndex(...) renders: its index name is a String fixed when the query
    // is built, and a named outbox's index (ix_NAME_outbox_message_pending) is known only when it
    // renders on that outbox's context.
    return DSL.table(
        "{0} as {1} force index ({2})",
        OUTBOX_MESSAGE, t.getUnqualifiedName(), OutboxNaming.outboxIndex("pending"));
  }

  @Override
  public boolean insertIfAbsent(InsertSetMoreStep<?> insert, UniqueRow<?> row) {
    return insertOrProbe(insert, row);
  }

  /**
   * A plain INSERT of a duplicate raises an error, which the driver logs as a WARN; INSERT IGNORE
   * would also turn real errors (NOT NULL, truncation) into warnings. ON DUPLICATE KEY UPDATE
   * raises nothing, but its row count cannot tell a duplicate from an insert when the driver sets
   * CLIENT_FOUND_ROWS, as MariaDB's and MySQL's drivers do by default: a row the update leaves as
   * it was counts 1, like an inserted row. So the update sets the probe column p to -1 - p, which
   * is never p, a duplicate counts 2 under either setting, and the same update again restores the
   * row in this transaction. Other transactions never see the changed value: the row stays locked
   * (exclusively) until this transaction ends.
   */
  private static <N extends Number> boolean insertOrProbe(
      InsertSetMoreStep<?> insert, UniqueRow<N> row) {
    Field<N> flipped = DSL.inline(-1, row.probe()).minus(row.probe());
    int count = insert.onDuplicateKeyUpdate().set(row.probe(), flipped).execute();
    if (count == 1) {
      return true;
    }
    int restored =
        insert
            .configuration()
            .dsl()
            .update(row.table())
            .set(row.probe(), flipped)
            .where(row.sameKey())
            .execute();
    if (count != 2 || restored != 1) {
      throw new IllegalStateException(
          "insert-if-absent into " + row.table() + " counted " + count + ", restored " + restored);
    }
    return false;
  }

  @Override
  public <R extends Record> ResultQuery<R> readCommitted(SelectConditionStep<R> select) {
    // The default REPEATABLE READ serves a plain SELECT from the snapshot of the transaction's
    // first read, which can predate the commit of the row the insert collided with; a locking read
    // sees the latest committed row.
    return select.forShare();
  }

  @Override
  public boolean isMissingTable(org.jooq.exception.DataAccessException e) {
    return "42S02".equals(e.sqlState()); // ER_NO_SUCH_TABLE
  }
}
