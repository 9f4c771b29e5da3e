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
import org.jooq.Select;
import org.jooq.SelectForUpdateStep;
import org.jooq.Table;
import org.jooq.UpdateConditionStep;
import org.jooq.impl.DSL;

/**
 * The selects a claim is built from, the same on every database (the first pass's runs are in
 * {@link WindowRuns}): where the window starts, which rows are ready, and the skip scan over
 * aggregate heads in its two shapes. The dialects pick a shape and add the locking.
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
    return readyAmong(heads, topics, limit, now, Set.of());
  }

  /**
   * {@link #readyAmong(List, Set, int, Instant)}, leaving out the rows of the aggregates {@code
   * notOf} (bind values).
   */
  static SelectForUpdateStep<Record1<Long>> readyAmong(
      List<Long> heads, Set<String> topics, int limit, Instant now, Set<String> notOf) {
    var o = OUTBOX_MESSAGE.as("o");
    return select(o.SEQ)
        .from(o)
        .where(pendingBySeq(o))
        .and(readyIfPending(o, topics, now))
        .and(o.SEQ.in(heads))
        .and(notOf.isEmpty() ? DSL.noCondition() : o.AGGREGATE.notIn(notOf))
        .orderBy(o.SEQ)
        .limit(limit);
  }

  /** How a claim finds one aggregate's oldest pending seq (the head scan, the window's runs). */
  enum HeadProbe {
    /**
     * The first pending entry at or after the aggregate in (aggregate, seq) order, which only the
     * (aggregate, seq) pending index gives. PostgreSQL plans {@code min(seq) where aggregate = ?}
     * and {@code ... where aggregate = ? order by seq limit 1} with a correlated parameter as a
     * walk of an index in seq order filtered on the aggregate, reading every older row of other
     * aggregates (27,000 rows a probe on 10 busy aggregates: PostgresHotClaimPlanTest).
     */
    FIRST_IN_INDEX_ORDER,
    /** {@code min(seq) where aggregate = ?}: one index seek on SQLite. */
    MIN_OF_AGGREGATE,
    /** {@code ... where aggregate = ? order by seq limit 1}: one index seek on MariaDB, SQLite. */
    FIRST_OF_AGGREGATE
  }

  /**
   * The oldest pending seq of the aggregate {@code aggregate} (a field of the enclosing query), as
   * a scalar subquery over the alias {@code alias} of the outbox table. The aggregate must have a
   * pending row: {@link HeadProbe#FIRST_IN_INDEX_ORDER} would return the next aggregate's head.
   */
  static Field<Long> oldestPendingOf(Field<String> aggregate, HeadProbe probe, String alias) {
    var h = OUTBOX_MESSAGE.as(alias);
    return switch (probe) {
      case FIRST_IN_INDEX_ORDER ->
          DSL.field(
              select(h.SEQ)
                  .from(h)
                  .where(h.AGGREGATE.ge(aggregate))
                  .and(pending(h))
                  .orderBy(h.AGGREGATE, h.SEQ)
                  .limit(1));
      case MIN_OF_AGGREGATE ->
          DSL.field(select(min(h.SEQ)).from(h).where(h.AGGREGATE.eq(aggregate)).and(pending(h)));
      case FIRST_OF_AGGREGATE ->
          DSL.field(
              select(h.SEQ)
                  .from(h)
                  .where(h.AGGREGATE.eq(aggregate))
                  .and(pending(h))
                  .orderBy(h.SEQ)
                  .limit(1));
    };
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
    // Every aggregate the recursion visits has a pending row, which FIRST_IN_INDEX_ORDER needs.
    Field<Long> headSeq = oldestPendingOf(aggAggregate, probe, "h");
    return DSL.withRecursive(visited)
        .select(headSeq)
        .from(aggTable)
        .where(aggAggregate.isNotNull());
  }

  /** */
  static Select<Record1<Long>> groupedHeads() {
    var h = OUTBOX_MESSAGE.as("h");
    return select(min(h.SEQ).as("head")).from(h).where(pending(h)).groupBy(h.AGGREGATE);
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
  static Condition ready(OutboxMessageTable o, Set<String> topics, Instant now) {
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
