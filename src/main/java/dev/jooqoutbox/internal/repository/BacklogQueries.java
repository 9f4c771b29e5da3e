package dev.jooqoutbox.internal.repository;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.jooq.impl.DSL.count;
import static org.jooq.impl.DSL.min;
import static org.jooq.impl.DSL.select;

import dev.jooqoutbox.OutboxStats;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Record1;
import org.jooq.Select;
import org.jooq.impl.DSL;

/** Counts of the outbox: full statistics for operators, cheap gauges for metrics. */
record BacklogQueries(DSLContext dsl, OutboxDialect dialect) {

  /** Per topic, sorted by topic; reads every row once. Topics with no rows are absent. */
  Map<String, OutboxStats> statsByTopic(Instant now) {
    Condition pending = ClaimQueries.pending(OUTBOX_MESSAGE);
    Field<Integer> pendingCount = count().filterWhere(pending).as("pending");
    Field<Integer> leasedCount =
        count().filterWhere(pending.and(OUTBOX_MESSAGE.LOCKED_UNTIL.gt(now))).as("leased");
    Field<Integer> deadCount = count().filterWhere(OUTBOX_MESSAGE.DEAD_AT.isNotNull()).as("dead");
    Field<Integer> sentCount = count().filterWhere(OUTBOX_MESSAGE.SENT_AT.isNotNull()).as("sent");
    Field<Instant> oldest = min(DSL.when(pending, OUTBOX_MESSAGE.CREATED_AT)).as("oldest");
    Field<Integer> unknownCount = count().filterWhere(OutcomeStore.unknown()).as("unknown");
    Map<String, OutboxStats> result = new LinkedHashMap<>();
    for (Record r :
        dsl.select(
                OUTBOX_MESSAGE.TOPIC,
                pendingCount,
                leasedCount,
                deadCount,
                sentCount,
                oldest,
                unknownCount)
            .from(OUTBOX_MESSAGE)
            .groupBy(OUTBOX_MESSAGE.TOPIC)
            .orderBy(OUTBOX_MESSAGE.TOPIC)
            .fetch()) {
      result.put(
          r.get(OUTBOX_MESSAGE.TOPIC),
          new OutboxStats(
              r.get(pendingCount),
              r.get(leasedCount),
              r.get(deadCount),
              r.get(sentCount),
              ageAt(now, r.get(oldest)),
              r.get(unknownCount)));
    }
    return result;
  }

  /** The pending count: an index-only count over the pending rows. */
  long pendingCount() {
    return dsl.fetchCount(OUTBOX_MESSAGE, ClaimQueries.pending(OUTBOX_MESSAGE));
  }

  /** The dead-letter count: an index-only count over the dead rows. */
  long deadCount() {
    return dsl.fetchCount(OUTBOX_MESSAGE, OUTBOX_MESSAGE.DEAD_AT.isNotNull());
  }

  /** Age of the oldest pending message at {@code now} (one index probe); zero when none. */
  Duration oldestPendingAge(Instant now) {
    return ageAt(now, dsl.fetchValue(oldestPendingCreatedAt(dialect)));
  }

  /** When the oldest pending message was written: the pending index read from its first entry. */
  static Select<Record1<Instant>> oldestPendingCreatedAt(OutboxDialect dialect) {
    var p = OUTBOX_MESSAGE.as("p");
    return select(p.CREATED_AT)
        .from(dialect.pendingInSeqOrder(p))
        .where(ClaimQueries.pending(p))
        .orderBy(dialect.pendingSeqOrder(p))
        .limit(1);
  }

  private static Duration ageAt(Instant now, Instant created) {
    return created == null || created.isAfter(now) ? Duration.ZERO : Duration.between(created, now);
  }
}
