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
import java.util.function.LongSupplier;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Record1;
import org.jooq.Select;
import org.jooq.impl.DSL;

/**
 * Counts of the outbox: full statistics for operators, cheap gauges for metrics. The gauges read
 * from where the claims' {@link HorizonFloor} stands ({@code floor}, {@link Long#MIN_VALUE} where
 * there is none): below it, only parked rows are pending (and a row set pending by hand until the
 * floor's recheck finds it), and they have an index of their own. Read from the pending index's
 * first entry, as before, the gauges walked the whole history every {@code gaugeInterval} while
 * another transaction held the xmin horizon.
 */
record BacklogQueries(DSLContext dsl, OutboxDialect dialect, LongSupplier floor) {

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

  /** The pending count: index-only counts over the pending rows, from the floor (see above). */
  long pendingCount() {
    Condition pending = ClaimQueries.pending(OUTBOX_MESSAGE);
    long from = floor.getAsLong();
    if (from == Long.MIN_VALUE) {
      return dsl.fetchCount(OUTBOX_MESSAGE, pending);
    }
    return dsl.fetchCount(OUTBOX_MESSAGE, pending.and(OUTBOX_MESSAGE.SEQ.ge(from)))
        + dsl.fetchCount(OUTBOX_MESSAGE, parkedBelow(from));
  }

  /** The dead-letter count: an index-only count over the dead rows. */
  long deadCount() {
    return dsl.fetchCount(OUTBOX_MESSAGE, OUTBOX_MESSAGE.DEAD_AT.isNotNull());
  }

  /**
   * Age of the oldest pending message at {@code now} (one index probe, two below a floor); zero
   * when none.
   */
  Duration oldestPendingAge(Instant now) {
    long from = floor.getAsLong();
    Instant oldest = null;
    if (from != Long.MIN_VALUE) {
      // Any parked row below the floor is older, by seq, than every row at or above it.
      oldest =
          dsl.select(OUTBOX_MESSAGE.CREATED_AT)
              .from(OUTBOX_MESSAGE)
              .where(parkedBelow(from))
              .orderBy(OUTBOX_MESSAGE.SEQ)
              .limit(1)
              .fetchOne(OUTBOX_MESSAGE.CREATED_AT);
    }
    if (oldest == null) {
      oldest = dsl.fetchValue(oldestPendingCreatedAt(dialect, from));
    }
    return ageAt(now, oldest);
  }

  /**
   * When the oldest pending message at or after {@code from} was written: the pending index read
   * from there ({@link Long#MIN_VALUE}: from its first entry).
   */
  static Select<Record1<Instant>> oldestPendingCreatedAt(OutboxDialect dialect, long from) {
    var p = OUTBOX_MESSAGE.as("p");
    Condition pending = ClaimQueries.pending(p);
    return select(p.CREATED_AT)
        .from(dialect.pendingInSeqOrder(p))
        .where(from == Long.MIN_VALUE ? pending : pending.and(p.SEQ.ge(from)))
        .orderBy(dialect.pendingSeqOrder(p))
        .limit(1);
  }

  /** The pending parked rows below {@code floor}: those of the parked index (PostgreSQL). */
  private static Condition parkedBelow(long floor) {
    return ClaimQueries.pending(OUTBOX_MESSAGE)
        .and(OUTBOX_MESSAGE.PARKED_AT.isNotNull())
        .and(OUTBOX_MESSAGE.SEQ.lt(floor));
  }

  private static Duration ageAt(Instant now, Instant created) {
    return created == null || created.isAfter(now) ? Duration.ZERO : Duration.between(created, now);
  }
}
