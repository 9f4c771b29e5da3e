package dev.jooqoutbox.internal.repository;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.jooq.impl.DSL.select;

import dev.jooqoutbox.schema.tables.OutboxMessageTable;
import java.time.Instant;
import java.util.Set;
import org.jooq.Condition;
import org.jooq.Field;
import org.jooq.Record3;
import org.jooq.Select;
import org.jooq.SelectFieldOrAsterisk;
import org.jooq.Table;
import org.jooq.WindowSpecification;
import org.jooq.impl.DSL;

/**
 * The claim's first pass, the same on every database: the runs of ready messages per aggregate
 * among the oldest pending rows from the floor on, in seq order.
 */
final class WindowRuns {

  private WindowRuns() {}

  /** How many pending rows the first pass reads: {@link ClaimQueries#scanWindow} plus the held. */
  static int windowRows(int limit, HeldClaims held) {
    return ClaimQueries.scanWindow(limit) + held.rows();
  }

  /** {@link #runs(OutboxDialect, Set, int, int, long, Instant, HeldClaims)}, holding nothing. */
  static Select<Record3<Long, String, Integer>> runs(
      OutboxDialect dialect, Set<String> topics, int limit, int maxRun, long floor, Instant now) {
    return runs(dialect, topics, limit, maxRun, floor, now, HeldClaims.NONE);
  }

  /**
   * The runs found among the oldest {@link #windowRows} pending rows from {@code floor} on, as
   * (seq, aggregate, window rows) in seq order, at most {@code limit}; the third column, the same
   * on every row, is how many pending rows the window read: fewer than {@link #windowRows} means it
   * saw every pending row from the floor on.
   *
   * <p>A ready row belongs to a run when every pending row of its aggregate before it in the window
   * is ready or held (leased to one of {@code held}'s tokens, its lease still running), the held
   * ones all come before the first ready one and are at most {@code maxRun} (one run in flight
   * behind which the next is claimed, so that a failure gives back at most one run), it is at most
   * the {@code maxRun}-th ready one, and the first row of the aggregate in the window is the
   * aggregate's oldest pending message (a probe of the (aggregate, seq) pending index, which is not
   * bounded by the floor: no row below the floor can be overtaken). So a run starts either at the
   * head of its aggregate or right behind the claimer's own rows of it, never behind a row another
   * relay holds, one that backs off, or one whose outcome is unknown.
   *
   * <p>The window is a derived table over the pending rows from {@code floor} on, in the dialect's
   * order: it walks the pending index from the floor, never the rows sent before it, whatever the
   * statistics say (a bound {@code seq < (the window's last seq)} let the planner pick the primary
   * key and filter out every sent row in a deep drain).
   */
  static Select<Record3<Long, String, Integer>> runs(
      OutboxDialect dialect,
      Set<String> topics,
      int limit,
      int maxRun,
      long floor,
      Instant now,
      HeldClaims held) {
    var o = OUTBOX_MESSAGE.as("o");
    Field<Integer> ready = flag(ClaimQueries.ready(o, topics, now), "ready");
    Field<Integer> mine = flag(heldBy(o, held, now), "held");
    Table<?> window =
        window(dialect, o, floor, windowRows(limit, held), o.SEQ, o.AGGREGATE, ready, mine);
    Field<Long> wSeq = window.field(o.SEQ);
    Field<String> wAggregate = window.field(o.AGGREGATE);
    Field<Integer> wReady = window.field(ready);
    Field<Integer> wHeld = window.field(mine);
    WindowSpecification inAggregate = DSL.partitionBy(wAggregate).orderBy(wSeq);
    WindowSpecification aggregate = DSL.partitionBy(wAggregate);
    // How many ready rows of the aggregate up to this one (ready and held exclude each other: a
    // held row's lease still runs).
    Field<Integer> position = DSL.sum(wReady).over(inAggregate).cast(Integer.class).as("run_pos");
    // The running minimum: 1 while every row of the aggregate so far is ready or held.
    Field<Integer> allOk = DSL.min(wReady.plus(wHeld)).over(inAggregate).as("all_ok");
    Field<Long> lastHeld =
        DSL.max(DSL.when(wHeld.eq(DSL.inline(1)), wSeq)).over(inAggregate).as("last_held");
    Field<Long> firstReady =
        DSL.min(DSL.when(wReady.eq(DSL.inline(1)), wSeq)).over(aggregate).as("first_ready");
    Field<Long> first = DSL.min(wSeq).over(aggregate).as("first_seq");
    Field<Integer> heldOfAggregate =
        DSL.sum(wHeld).over(aggregate).cast(Integer.class).as("held_rows");
    Field<Integer> windowRows = DSL.count().over().as("window_rows");
    Table<?> members =
        select(
                wSeq,
                wAggregate,
                wReady,
                position,
                allOk,
                lastHeld,
                firstReady,
                first,
                heldOfAggregate,
                windowRows)
            .from(window)
            .asTable("r");
    Field<Long> rSeq = members.field(wSeq);
    Field<String> rAggregate = members.field(wAggregate);
    Field<Long> rLastHeld = members.field(lastHeld);
    // Sorted by seq and fenced with a LIMIT that cuts nothing (no run row is dropped: there are at
    // most windowRows of them), so that PostgreSQL does not push the head probe below the sort:
    // the probe then runs per row in seq order only until the outer LIMIT is reached.
    Table<?> inOrder =
        select(rSeq, rAggregate, members.field(first), members.field(windowRows))
            .from(members)
            .where(members.field(wReady).eq(DSL.inline(1)))
            .and(members.field(position).le(maxRun))
            .and(members.field(allOk).eq(DSL.inline(1)))
            .and(rLastHeld.isNull().or(rLastHeld.lt(members.field(firstReady))))
            .and(members.field(heldOfAggregate).le(maxRun))
            .orderBy(rSeq)
            .limit(windowRows(limit, held))
            .asTable("c");
    Field<Long> cSeq = inOrder.field(rSeq);
    Field<String> cAggregate = inOrder.field(rAggregate);
    // The oldest pending message of the aggregate (which has one: the candidate row is pending). A
    // correlated scalar subquery, not "NOT EXISTS an older pending one": PostgreSQL turns that into
    // an anti join, and when its statistics say the pending index is empty (a fresh migration, a
    // burst after a quiet spell) it scans the whole index for every candidate instead of probing.
    Field<Long> head = HeadQueries.oldestPendingOf(cAggregate, dialect.headProbe(), "older");
    return select(cSeq, cAggregate, inOrder.field(windowRows))
        .from(inOrder)
        .where(inOrder.field(first).eq(head))
        .orderBy(cSeq)
        .limit(limit);
  }

  /** The pending rows from {@code floor} on, in the dialect's order, at most {@code rows}. */
  private static Table<?> window(
      OutboxDialect dialect,
      OutboxMessageTable o,
      long floor,
      int rows,
      SelectFieldOrAsterisk... fields) {
    return select(fields)
        .from(dialect.pendingInSeqOrder(o))
        .where(ClaimQueries.pending(o))
        .and(o.SEQ.ge(floor))
        .orderBy(dialect.pendingSeqOrder(o))
        .limit(rows)
        .asTable("w");
  }

  /** Leased to one of the held claims, the lease still running, the outcome not unknown. */
  private static Condition heldBy(OutboxMessageTable o, HeldClaims held, Instant now) {
    if (held.tokens().isEmpty()) {
      return DSL.falseCondition();
    }
    return o.CLAIM_TOKEN
        .in(held.tokens())
        .and(o.LOCKED_UNTIL.gt(now))
        .and(o.OUTCOME_UNKNOWN_AT.isNull());
  }

  private static Field<Integer> flag(Condition condition, String name) {
    return DSL.when(condition, DSL.inline(1)).otherwise(DSL.inline(0)).as(name);
  }
}
