package dev.jooqoutbox.internal.repository;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.jooq.impl.DSL.count;
import static org.jooq.impl.DSL.countDistinct;
import static org.jooq.impl.DSL.min;
import static org.jooq.impl.DSL.select;
import static org.jooq.impl.DSL.selectOne;

import dev.jooqoutbox.BlockedMessages;
import dev.jooqoutbox.schema.tables.OutboxMessageTable;
import java.time.Instant;
import java.util.function.Function;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record2;
import org.jooq.Table;

/**
 * Which pending messages wait behind an older message of their aggregate that cannot go now. Each
 * aggregate's first blocking message (its lowest seq) is found first, from few rows when the
 * blockers are few (outcome-unknown rows have an index of their own); the waiting messages are then
 * read through the (aggregate, seq) pending index.
 */
record BlockedQueries(DSLContext dsl) {

  /** Behind an outcome-unknown message: pending until a reconciler or an operator resolves it. */
  BlockedMessages behindUnknown() {
    // The unknown index's predicate alone, which implies pending (OutcomeStore.unknownIndexed).
    return blockedBehind(b -> b.OUTCOME_UNKNOWN_AT.isNotNull());
  }

  /**
   * Behind a message waiting for its retry after a failure: pending, outcome known, not leased, due
   * after {@code now}, with an error. A message delayed or rescheduled without having failed does
   * not count.
   */
  BlockedMessages behindRetry(Instant now) {
    return blockedBehind(
        b ->
            ClaimQueries.pending(b)
                .and(b.OUTCOME_UNKNOWN_AT.isNull())
                .and(b.LAST_ERROR.isNotNull())
                .and(b.AVAILABLE_AT.gt(now))
                .and(b.LOCKED_UNTIL.isNull().or(b.LOCKED_UNTIL.le(now))));
  }

  private BlockedMessages blockedBehind(Function<OutboxMessageTable, Condition> blocking) {
    OutboxMessageTable b = OUTBOX_MESSAGE.as("b");
    Table<Record2<String, Long>> heads =
        select(b.AGGREGATE, min(b.SEQ).as("first_seq"))
            .from(b)
            .where(blocking.apply(b))
            .groupBy(b.AGGREGATE)
            .asTable("h");
    Field<String> headAggregate = heads.field(b.AGGREGATE);
    Field<Long> headSeq = heads.field("first_seq", Long.class);
    OutboxMessageTable m = OUTBOX_MESSAGE.as("m");
    Condition behindHead =
        m.AGGREGATE.eq(headAggregate).and(m.SEQ.gt(headSeq)).and(ClaimQueries.pending(m));

    var totals =
        dsl.select(count(), countDistinct(m.AGGREGATE))
            .from(heads)
            .join(m)
            .on(behindHead)
            .fetchSingle();
    if (totals.value1() == 0) {
      return BlockedMessages.NONE;
    }
    OutboxMessageTable blocker = OUTBOX_MESSAGE.as("k");
    var oldest =
        dsl.select(headAggregate, blocker.ID)
            .from(heads)
            .join(blocker)
            .on(blocker.SEQ.eq(headSeq))
            .whereExists(selectOne().from(m).where(behindHead))
            .orderBy(headSeq)
            .limit(1)
            .fetchSingle();
    return new BlockedMessages(totals.value1(), totals.value2(), oldest.value1(), oldest.value2());
  }
}
