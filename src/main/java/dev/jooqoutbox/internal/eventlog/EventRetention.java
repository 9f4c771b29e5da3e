package dev.jooqoutbox.internal.eventlog;

import static dev.jooqoutbox.schema.Tables.OUTBOX_EVENT;
import static dev.jooqoutbox.schema.Tables.OUTBOX_EVENT_KEY;
import static org.jooq.impl.DSL.max;

import dev.jooqoutbox.PurgeResult;
import dev.jooqoutbox.internal.repository.PurgeRun;
import dev.jooqoutbox.schema.tables.records.OutboxShardRecord;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.jooq.DSLContext;
import org.jooq.Record3;
import org.jooq.Table;
import org.jooq.impl.DSL;

/**
 * Retention of the event log: a partition whose transactions every shard has read past and whose
 * newest message is older than the cutoff is emptied whole with TRUNCATE, which gives its space
 * back to the file system at once, after its messages' keys are deleted in batches (so a caller's
 * id stays an idempotency key exactly as long as its message is kept). Nothing pending is in such a
 * partition: every transaction in its range ended before the oldest position any shard reads from,
 * and a message that needed a state of its own lives on as its copy in outbox_message.
 *
 * <p>TRUNCATE locks only the partition: writers and relays, which read recent partitions only,
 * never wait for it; a report reading the partition delays it. It waits at most {@value
 * EventPartitions#LOCK_TIMEOUT} and is tried again at the next purge. Not thread-safe: one run per
 * purge.
 */
final class EventRetention implements PurgeRun {

  private final DSLContext dsl;
  private final EventPartitions partitions;
  private final Instant cutoff;
  private final int batchSize;
  private final Deque<EventPartitions.Range> due = new ArrayDeque<>();
  private Record3<Short, Long, Long> after;
  private long deleted;
  private boolean listed;

  EventRetention(DSLContext dsl, EventPartitions partitions, Instant cutoff, int batchSize) {
    this.dsl = dsl;
    this.partitions = partitions;
    this.cutoff = cutoff;
    this.batchSize = batchSize;
  }

  @Override
  public boolean next() {
    if (!listed) {
      listed = true;
      due.addAll(emptiable());
      return !due.isEmpty();
    }
    EventPartitions.Range range = due.peek();
    if (range == null) {
      return false;
    }
    if (deleteKeys(range)) {
      return true;
    }
    truncate(range);
    due.poll();
    after = null;
    return !due.isEmpty();
  }

  @Override
  public PurgeResult deleted() {
    return new PurgeResult(deleted, 0);
  }

  /**
   * The range partitions every shard has read past whose newest message is older than the cutoff.
   */
  List<EventPartitions.Range> emptiable() {
    long floor = Long.MAX_VALUE;
    List<OutboxShardRecord> shards =
        dsl.selectFrom(dev.jooqoutbox.schema.Tables.OUTBOX_SHARD).fetch();
    for (OutboxShardRecord r : shards) {
      floor = Math.min(floor, ShardLeases.cursorOf(r).lower().xmin());
    }
    long below = floor;
    return partitions.ranges().stream()
        .filter(r -> r.to() <= below)
        .filter(r -> newest(r) != null && newest(r).isBefore(cutoff))
        .toList();
  }

  private Instant newest(EventPartitions.Range r) {
    var e = OUTBOX_EVENT.as("e");
    return dsl.select(max(e.CREATED_AT)).from(partition(r).as("e")).fetchOne(0, Instant.class);
  }

  /** Deletes the next batch of the keys of {@code r}'s messages; false when none was left. */
  private boolean deleteKeys(EventPartitions.Range r) {
    Table<?> p = partition(r);
    var e = OUTBOX_EVENT.as("e");
    var page =
        dsl.select(e.SHARD, e.TXID, e.SEQ, e.ID)
            .from(p.as("e"))
            .where(
                after == null
                    ? DSL.noCondition()
                    : DSL.row(e.SHARD, e.TXID, e.SEQ)
                        .gt(after.value1(), after.value2(), after.value3()))
            .orderBy(e.SHARD, e.TXID, e.SEQ)
            .limit(batchSize)
            .fetch();
    if (page.isEmpty()) {
      return false;
    }
    var last = page.get(page.size() - 1);
    after =
        DSL.using(dsl.dialect())
            .newRecord(e.SHARD, e.TXID, e.SEQ)
            .values(last.value1(), last.value2(), last.value3());
    dsl.deleteFrom(OUTBOX_EVENT_KEY).where(OUTBOX_EVENT_KEY.ID.in(page.getValues(e.ID))).execute();
    return true;
  }

  private void truncate(EventPartitions.Range r) {
    dsl.transaction(
        tx -> {
          tx.dsl()
              .select(
                  DSL.function(
                      "set_config",
                      String.class,
                      DSL.inline("lock_timeout"),
                      DSL.inline(EventPartitions.LOCK_TIMEOUT),
                      DSL.inline(true)))
              .execute();
          // Counted here, not as keys are deleted: a truncation that gave up is tried again by
          // the next purge, which reports the messages it removed. Nothing writes into a
          // partition every shard has read past, so the count is what the truncation removes.
          long messages = tx.dsl().fetchCount(partition(r));
          tx.dsl().truncate(partition(r)).execute();
          deleted += messages;
        });
  }

  private Table<?> partition(EventPartitions.Range r) {
    return partitions.table(r);
  }
}
