package dev.jooqoutbox.internal.repository;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.jooq.impl.DSL.min;
import static org.jooq.impl.DSL.select;

import dev.jooqoutbox.schema.tables.OutboxMessageTable;
import dev.jooqoutbox.schema.tables.records.OutboxMessageRecord;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.jooq.CommonTableExpression;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Name;
import org.jooq.Record1;
import org.jooq.Record2;
import org.jooq.Record3;
import org.jooq.Select;
import org.jooq.SelectForUpdateStep;
import org.jooq.Table;
import org.jooq.UpdateConditionStep;
import org.jooq.WindowSpecification;
import org.jooq.impl.DSL;

/**
 * The selects a claim is built from, the same on every database: the runs among the oldest pending
 * rows, which rows are ready, and the skip scan over aggregate heads in its two shapes. The
 * dialects pick a shape and add the locking.
 */
final class ClaimQueries {

  private ClaimQueries() {}

  /** How many of the oldest pending rows the first claim pass looks at. */
  static int scanWindow(int limit) {
    return Math.max(4 * limit, 200);
  }

  /** How many aggregates the second claim pass enumerates at most. */
  static int headScanBound(int limit) {
    return Math.max(10 * limit, 1000);
  }

  /**
   * The first claim pass: the runs found among the oldest {@link #scanWindow} pending rows from
   * {@code floor} on, as (seq, aggregate, window rows) in seq order, at most {@code limit}; the
   * third column, the same on every row, is how many pending rows the window read: fewer than
   * {@link #scanWindow} means it saw every pending row from the floor on. A row belongs to a run
   * when every pending row of its aggregate before it in the window is ready, it is at most the
   * {@code maxRun}-th of them, and the first of them is the aggregate's oldest pending message (a
   * probe of the (aggregate, seq) pending index, which is not bounded by the floor: no row below
   * the floor can be overtaken).
   *
   * <p>The window is a derived table ordered by seq over the pending rows from {@code floor} on: on
   * PostgreSQL it walks the partial pending index from the floor, never the rows sent before it,
   * whatever the statistics say (a bound {@code seq < (the window's last seq)} let the planner pick
   * the primary key and filter out every sent row, 149 ms a claim midway through a deep drain).
   */
  static Select<Record3<Long, String, Integer>> runs(
      OutboxDialect dialect, Set<String> topics, int limit, int maxRun, long floor, Instant now) {
    var o = OUTBOX_MESSAGE.as("o");
    Field<Integer> ready =
        DSL.when(ready(o, topics, now), DSL.inline(1)).otherwise(DSL.inline(0)).as("ready");
    Table<?> window =
        select(o.SEQ, o.AGGREGATE, ready)
            .from(dialect.pendingInSeqOrder(o))
            .where(pending(o))
            .and(o.SEQ.ge(floor))
            .orderBy(dialect.pendingSeqOrder(o))
            .limit(scanWindow(limit))
            .asTable("w");
    Field<Long> wSeq = window.field(o.SEQ);
    Field<String> wAggregate = window.field(o.AGGREGATE);
    Field<Integer> wReady = window.field(ready);
    WindowSpecification inAggregate = DSL.partitionBy(wAggregate).orderBy(wSeq);
    Field<Integer> position = DSL.rowNumber().over(inAggregate).as("run_pos");
    // The running minimum: 1 while every row of the aggregate so far is ready.
    Field<Integer> allReady = DSL.min(wReady).over(inAggregate).as("all_ready");
    Field<Long> first = DSL.min(wSeq).over(DSL.partitionBy(wAggregate)).as("first_seq");
    Field<Integer> windowRows = DSL.count().over().as("window_rows");
    Table<?> members =
        select(wSeq, wAggregate, position, allReady, first, windowRows).from(window).asTable("r");
    Field<Long> rSeq = members.field(wSeq);
    Field<String> rAggregate = members.field(wAggregate);
    // Sorted by seq and fenced with a LIMIT that cuts nothing (no run row is dropped: there are at
    // most scanWindow of them), so that PostgreSQL does not push the head probe below the sort:
    // the probe then runs per row in seq order only until the outer LIMIT is reached.
    Table<?> inOrder =
        select(rSeq, rAggregate, members.field(first), members.field(windowRows))
            .from(members)
            .where(members.field(position).le(maxRun))
            .and(members.field(allReady).eq(DSL.inline(1)))
            .orderBy(rSeq)
            .limit(scanWindow(limit))
            .asTable("c");
    Field<Long> cSeq = inOrder.field(rSeq);
    Field<String> cAggregate = inOrder.field(rAggregate);
    var older = OUTBOX_MESSAGE.as("older");
    // The oldest pending message of the aggregate. A correlated scalar subquery, not "NOT EXISTS
    // an older pending one": PostgreSQL turns that into an anti join, and when its statistics say
    // the pending index is empty (a fresh migration, a burst after a quiet spell) it scans the
    // whole index for every candidate instead of probing it.
    Field<Long> head =
        DSL.field(
            select(older.SEQ)
                .from(older)
                .where(older.AGGREGATE.eq(cAggregate))
                .and(pending(older))
                .orderBy(older.SEQ)
                .limit(1));
    return select(cSeq, cAggregate, inOrder.field(windowRows))
        .from(inOrder)
        .where(inOrder.field(first).eq(head))
        .orderBy(cSeq)
        .limit(limit);
  }

  /**
   * The seq from which a claim's window may start: the oldest pending seq, or one past the newest
   * seq when nothing is pending (a row written later gets a higher one), or null on an empty table.
   */
  static Select<Record1<Long>> oldestPendingOrNext(OutboxDialect dialect) {
    var p = OUTBOX_MESSAGE.as("p");
    var any = OUTBOX_MESSAGE.as("a");
    return select(
        DSL.coalesce(
            DSL.field(
                select(p.SEQ)
                    .from(dialect.pendingInSeqOrder(p))
                    .where(pending(p))
                    .orderBy(dialect.pendingSeqOrder(p))
                    .limit(1)),
            DSL.field(select(DSL.max(any.SEQ).plus(1)).from(any))));
  }

  /**
   * Which of the aggregate heads {@code heads} are ready, oldest first. A separate statement from
   * the head scan on purpose: with the recursive query inlined as an {@code IN} subquery,
   * PostgreSQL sometimes planned it as a nested loop that recomputed every head per outer row.
   */
  static SelectForUpdateStep<Record1<Long>> readyAmong(
      List<Long> heads, Set<String> topics, int limit, Instant now) {
    var o = OUTBOX_MESSAGE.as("o");
    return select(o.SEQ)
        .from(o)
        .where(pendingBySeq(o))
        .and(readyIfPending(o, topics, now))
        .and(o.SEQ.in(heads))
        .orderBy(o.SEQ)
        .limit(limit);
  }

  /** How the recursive head scan finds one aggregate's oldest pending seq. */
  enum HeadProbe {
    /**
     * The first pending entry at or after the aggregate in (aggregate, seq) order. PostgreSQL plans
     * {@code min(seq) where aggregate = ?} with a correlated parameter as a walk of the
     * pending-by-seq index filtered on the aggregate, reading every older row of other aggregates.
     */
    FIRST_IN_INDEX_ORDER,
    /** {@code min(seq) where aggregate = ?}: one index seek on SQLite. */
    MIN_OF_AGGREGATE
  }

  /**
   * The skip scan as a recursive query: it steps from one aggregate to the next with one index
   * probe each, and takes each aggregate's oldest pending seq with another. Its cost grows with the
   * number of aggregates it visits, not with the number of pending rows, which is what makes it
   * cheap exactly when the seq-order window is clogged by a few busy aggregates.
   */
  static Select<Record1<Long>> recursiveHeads(int aggregates, HeadProbe probe) {
    var first = OUTBOX_MESSAGE.as("f");
    var next = OUTBOX_MESSAGE.as("n");
    var head = OUTBOX_MESSAGE.as("h");
    Name agg = DSL.name("agg");
    // Plain SQL templates over names: jOOQ's render mapping of an outbox in a schema
    // (OutboxName.inSchema maps the default schema) would qualify a table or field built from a
    // name with that schema too, and a CTE has none. A Name itself renders as given.
    Table<?> aggTable = DSL.table("{0}", agg);
    Field<String> aggAggregate = DSL.field("{0}", String.class, DSL.name("agg", "aggregate"));
    Field<Integer> aggDepth = DSL.field("{0}", Integer.class, DSL.name("agg", "depth"));
    CommonTableExpression<Record2<String, Integer>> visited =
        agg.fields("aggregate", "depth")
            .as(
                select(
                        DSL.field(select(min(first.AGGREGATE)).from(first).where(pending(first))),
                        DSL.inline(1))
                    .unionAll(
                        select(
                                DSL.field(
                                    select(min(next.AGGREGATE))
                                        .from(next)
                                        .where(pending(next))
                                        .and(next.AGGREGATE.gt(aggAggregate))),
                                aggDepth.plus(DSL.inline(1)))
                            .from(aggTable)
                            .where(aggAggregate.isNotNull())
                            .and(aggDepth.lt(DSL.inline(aggregates)))));
    Field<Long> headSeq =
        switch (probe) {
          case FIRST_IN_INDEX_ORDER ->
              DSL.field(
                  select(head.SEQ)
                      .from(head)
                      .where(head.AGGREGATE.ge(aggAggregate))
                      .and(pending(head))
                      .orderBy(head.AGGREGATE, head.SEQ)
                      .limit(1));
          case MIN_OF_AGGREGATE ->
              DSL.field(
                  select(min(head.SEQ))
                      .from(head)
                      .where(head.AGGREGATE.eq(aggAggregate))
                      .and(pending(head)));
        };
    return DSL.withRecursive(visited)
        .select(headSeq)
        .from(aggTable)
        .where(aggAggregate.isNotNull());
  }

  /**
   * The skip scan as {@code min(seq) ... group by aggregate}, which MariaDB and MySQL answer with a
   * loose index scan ("using index for group-by").
   */
  static Select<Record1<Long>> groupedHeads(int aggregates) {
    var h = OUTBOX_MESSAGE.as("h");
    return select(min(h.SEQ)).from(h).where(pending(h)).groupBy(h.AGGREGATE).limit(aggregates);
  }

  /**
   * Takes the lease of the rows {@code which} selects for {@code lease}, counting one attempt each.
   * Runs only on rows the dialect has already locked or skipped-locked.
   */
  static UpdateConditionStep<OutboxMessageRecord> takeLease(
      DSLContext ctx, Condition which, OutboxDialect.Lease lease) {
    return ctx.update(OUTBOX_MESSAGE)
        .set(OUTBOX_MESSAGE.CLAIM_TOKEN, lease.token())
        .set(OUTBOX_MESSAGE.LOCKED_UNTIL, lease.until())
        .set(OUTBOX_MESSAGE.ATTEMPTS, OUTBOX_MESSAGE.ATTEMPTS.plus(1))
        .where(which);
  }

  /** Not sent and not dead. */
  static Condition pending(OutboxMessageTable t) {
    return t.SENT_AT.isNull().and(t.DEAD_AT.isNull());
  }

  /**
   * {@link #pending}, written so that it matches no partial index's predicate, for the statements
   * that find their rows by seq (the lease's candidates, the settles, the heartbeat): they then
   * probe the primary key whatever the statistics say. With {@link #pending} and no statistics (a
   * table never analyzed) PostgreSQL took the partial (aggregate, seq) pending index for nearly
   * empty and read all of it for three seqs (PostgresFreshDrainClaimPlanTest).
   */
  static Condition pendingBySeq(OutboxMessageTable t) {
    return DSL.coalesce(t.SENT_AT, t.DEAD_AT).isNull();
  }

  /**
   * Pending, available, not leased, not outcome-unknown, of one of {@code topics}; not yet "oldest
   * of aggregate". An outcome-unknown row is pending but never ready, so it blocks its aggregate
   * like a row that is backing off; only reconciliation or an operator moves it on.
   */
  private static Condition ready(OutboxMessageTable o, Set<String> topics, Instant now) {
    return pending(o).and(readyIfPending(o, topics, now));
  }

  /** What makes a pending row ready. */
  private static Condition readyIfPending(OutboxMessageTable o, Set<String> topics, Instant now) {
    return o.OUTCOME_UNKNOWN_AT
        .isNull()
        .and(o.AVAILABLE_AT.le(now))
        .and(o.LOCKED_UNTIL.isNull().or(o.LOCKED_UNTIL.le(now)))
        .and(o.TOPIC.in(topics));
  }
}
