package dev.jooqoutbox.internal.repository;

import static dev.jooqoutbox.internal.repository.ClaimQueries.pending;
import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.jooq.impl.DSL.min;
import static org.jooq.impl.DSL.select;

import org.jooq.CommonTableExpression;
import org.jooq.Field;
import org.jooq.Name;
import org.jooq.Record1;
import org.jooq.Record2;
import org.jooq.Select;
import org.jooq.Table;
import org.jooq.impl.DSL;

/**
 * How a claim finds an aggregate's oldest pending message: the probe of one aggregate (the window's
 * check that a run starts at its aggregate's head) and the head scans over many.
 */
final class HeadQueries {

  private HeadQueries() {}

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

  /** Each aggregate's oldest pending seq, grouped: MariaDB's loose index scan. */
  static Select<Record1<Long>> groupedHeads() {
    var h = OUTBOX_MESSAGE.as("h");
    return select(min(h.SEQ).as("head")).from(h).where(pending(h)).groupBy(h.AGGREGATE);
  }
}
