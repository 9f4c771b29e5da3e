package dev.jooqoutbox.internal.repository;

import static dev.jooqoutbox.internal.repository.ClaimQueries.pending;
import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.jooq.impl.DSL.min;
import static org.jooq.impl.DSL.select;

import dev.jooqoutbox.schema.tables.OutboxMessageTable;
import org.jooq.CommonTableExpression;
import org.jooq.Condition;
import org.jooq.Field;
import org.jooq.Name;
import org.jooq.Record1;
import org.jooq.Record2;
import org.jooq.Select;
import org.jooq.Table;
import org.jooq.impl.DSL;

/**
 * How a claim finds an aggregate's oldest pending message: the probe of one aggregate (the window's
 * check that a run starts at its aggregate's head) and the head scans over many, each from a floor
 * or from the first entry, with the parked rows below a floor.
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
   * The oldest pending seq at or after {@code from} of the aggregate {@code aggregate} (a field of
   * the enclosing query), as a scalar subquery over the alias {@code alias} of the outbox table.
   * The aggregate must have a pending row at or after {@code from}: {@link
   * HeadProbe#FIRST_IN_INDEX_ORDER} would return the next aggregate's head. {@code from} is {@link
   * Long#MIN_VALUE} unless the claim knows that no row below it can hold the aggregate back ({@link
   * HorizonFloor}): the probe then starts there, past the index entries of the messages delivered
   * before it, which PostgreSQL cannot remove while another transaction holds the xmin horizon.
   */
  static Field<Long> oldestPendingOf(
      Field<String> aggregate, HeadProbe probe, String alias, long from) {
    var h = OUTBOX_MESSAGE.as(alias);
    return switch (probe) {
      case FIRST_IN_INDEX_ORDER ->
          orParked(
              DSL.field(
                  select(h.SEQ)
                      .from(h)
                      .where(
                          from == Long.MIN_VALUE
                              ? h.AGGREGATE.ge(aggregate)
                              // A row comparison: the index scan starts at (aggregate, from).
                              : DSL.row(h.AGGREGATE, h.SEQ).ge(aggregate, DSL.val(from)))
                      .and(pending(h))
                      .orderBy(h.AGGREGATE, h.SEQ)
                      .limit(1)),
              aggregate,
              alias,
              from);
      case MIN_OF_AGGREGATE ->
          orParked(
              DSL.field(
                  select(min(h.SEQ))
                      .from(h)
                      .where(h.AGGREGATE.eq(aggregate))
                      .and(pending(h))
                      .and(atOrAfter(h, from))),
              aggregate,
              alias,
              from);
      case FIRST_OF_AGGREGATE ->
          orParked(
              DSL.field(
                  select(h.SEQ)
                      .from(h)
                      .where(h.AGGREGATE.eq(aggregate))
                      .and(pending(h))
                      .and(atOrAfter(h, from))
                      .orderBy(h.SEQ)
                      .limit(1)),
              aggregate,
              alias,
              from);
    };
  }

  /**
   * {@code head}, or the aggregate's oldest pending parked row where that is older: a {@link
   * HorizonFloor} passes parked rows (delayed, backing off, outcome unknown, requeued) instead of
   * waiting for them, and each still holds its aggregate back like any older pending row. One probe
   * of the small index of pending parked rows (changeset 007). Nothing to add without a floor.
   */
  private static Field<Long> orParked(
      Field<Long> head, Field<String> aggregate, String alias, long from) {
    if (from == Long.MIN_VALUE) {
      return head;
    }
    var r = OUTBOX_MESSAGE.as(alias + "_r");
    Field<Long> parked =
        DSL.field(
            select(min(r.SEQ))
                .from(r)
                .where(r.AGGREGATE.eq(aggregate))
                .and(parkedPending(r))
                .and(r.SEQ.lt(from)));
    // Either may be null. PostgreSQL's LEAST skips nulls, so the COALESCE ends there and each
    // probe runs once; MariaDB's and SQLite's are null with a null argument, and the COALESCE then
    // runs the probes again.
    return DSL.coalesce(DSL.least(head, parked), head, parked);
  }

  /** Pending and parked: the rows of the partial index ix_outbox_message_parked. */
  static Condition parkedPending(OutboxMessageTable t) {
    return t.PARKED_AT.isNotNull().and(pending(t));
  }

  /**
   * The oldest pending parked row of each aggregate that has one below {@code upTo}. Those below a
   * {@link HorizonFloor} are the heads of their aggregates, as every other row there is sent or
   * dead; one at or after the floor is a head only where {@link #parkedHeadsBetween} says so.
   */
  static Select<Record1<Long>> parkedHeadsBelow(long upTo) {
    var r = OUTBOX_MESSAGE.as("r");
    return select(min(r.SEQ))
        .from(r)
        .where(parkedPending(r))
        .and(r.SEQ.lt(upTo))
        .groupBy(r.AGGREGATE);
  }

  /**
   * The oldest pending parked row of each aggregate that has one from {@code floor} up to {@code
   * windowFrom}, kept only where it is its aggregate's oldest pending row (a probe from {@code
   * floor}, valid as the row itself is pending there): the window, which starts at {@code
   * windowFrom}, cannot see these rows, and a row committed late may still be older.
   */
  static Select<Record1<Long>> parkedHeadsBetween(
      OutboxDialect dialect, long floor, long windowFrom) {
    var r = OUTBOX_MESSAGE.as("pr");
    Field<Long> first = min(r.SEQ).as("first_parked");
    Table<?> firsts =
        select(r.AGGREGATE, first)
            .from(r)
            .where(parkedPending(r))
            .and(atOrAfter(r, floor))
            .and(r.SEQ.lt(windowFrom))
            .groupBy(r.AGGREGATE)
            .asTable("pf");
    Field<Long> seq = firsts.field(first);
    return select(seq)
        .from(firsts)
        .where(
            seq.eq(oldestPendingOf(firsts.field(r.AGGREGATE), dialect.headProbe(), "ph", floor)));
  }

  private static Condition atOrAfter(OutboxMessageTable t, long from) {
    return from == Long.MIN_VALUE ? DSL.noCondition() : t.SEQ.ge(from);
  }

  /**
   * The skip scan as a recursive query: it steps from one aggregate to the next with one index
   * probe each, and takes each aggregate's oldest pending seq with another. Its cost grows with the
   * number of aggregates it visits, not with the number of pending rows, which is what makes it
   * cheap exactly when the seq-order window is clogged by a few busy aggregates. Only pending rows
   * at or after {@code from} count ({@link Long#MIN_VALUE}: all).
   */
  static Select<Record1<Long>> recursiveHeads(int aggregates, HeadProbe probe, long from) {
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
                        DSL.field(
                            select(min(first.AGGREGATE))
                                .from(first)
                                .where(pending(first))
                                .and(atOrAfter(first, from))),
                        DSL.inline(1))
                    .unionAll(
                        select(
                                DSL.field(
                                    select(min(next.AGGREGATE))
                                        .from(next)
                                        .where(pending(next))
                                        // Checked on the index entry, before the row is read:
                                        // the entries of messages delivered before the floor
                                        // cost no visit of their row versions.
                                        .and(atOrAfter(next, from))
                                        .and(next.AGGREGATE.gt(aggAggregate))),
                                aggDepth.plus(DSL.inline(1)))
                            .from(aggTable)
                            .where(aggAggregate.isNotNull())
                            .and(aggDepth.lt(DSL.inline(aggregates)))));
    // Every aggregate the recursion visits has a pending row at or after from, which
    // FIRST_IN_INDEX_ORDER needs.
    Field<Long> headSeq = oldestPendingOf(aggAggregate, probe, "h", from);
    return DSL.withRecursive(visited)
        .select(headSeq)
        .from(aggTable)
        .where(aggAggregate.isNotNull());
  }

  /**
   * Each aggregate's oldest pending seq at or after {@code from}, grouped: MariaDB's loose index
   * scan.
   */
  static Select<Record1<Long>> groupedHeads(long from) {
    var h = OUTBOX_MESSAGE.as("h");
    return select(min(h.SEQ).as("head"))
        .from(h)
        .where(pending(h))
        .and(atOrAfter(h, from))
        .groupBy(h.AGGREGATE);
  }
}
