package dev.jooqoutbox.internal.eventlog;

import static dev.jooqoutbox.schema.Tables.OUTBOX_EVENT;
import static org.jooq.impl.DSL.min;

import dev.jooqoutbox.schema.tables.records.OutboxShardRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.jooq.Condition;
import org.jooq.Field;
import org.jooq.impl.DSL;

/**
 * The log's backlog, for gauges and operators: the messages no shard has settled yet, read from
 * each shard's position (index range scans of the backlog only, whatever the history). Messages
 * inside a batch being read count as pending until the batch ends.
 */
final class EventBacklog {

  private final ShardLeases leases;

  EventBacklog(ShardLeases leases) {
    this.leases = leases;
  }

  /** The log's unsettled messages that have no copy in outbox_message (counted there). */
  long pendingCount() {
    return leases.dsl().fetchCount(OUTBOX_EVENT, unsettled(leases.all()).and(noCopy()));
  }

  Duration oldestPendingAge(Instant now) {
    Instant oldest =
        leases
            .dsl()
            .select(min(OUTBOX_EVENT.CREATED_AT))
            .from(OUTBOX_EVENT)
            .where(unsettled(leases.all()))
            .and(noCopy())
            .fetchOne(0, Instant.class);
    return oldest == null || oldest.isAfter(now) ? Duration.ZERO : Duration.between(oldest, now);
  }

  /**
   * The messages behind no shard's settled position, as a condition with literal bounds: not seen
   * by the shard's lower snapshot, and, where a batch is being read, not among the messages of that
   * batch up to where it was settled.
   */
  static Condition unsettled(List<OutboxShardRecord> shards) {
    List<Condition> each = new ArrayList<>();
    for (OutboxShardRecord r : shards) {
      Cursor c = ShardLeases.cursorOf(r);
      Condition notSettled = unseen(c.lower());
      if (c.inBatch()) {
        Condition inBatchBehind =
            DSL.not(unseen(c.upper()))
                .and(
                    DSL.row(OUTBOX_EVENT.TXID, OUTBOX_EVENT.SEQ)
                        .le(DSL.inline(c.afterTxid()), DSL.inline(c.afterSeq())));
        notSettled = notSettled.andNot(inBatchBehind);
      }
      each.add(OUTBOX_EVENT.SHARD.eq(DSL.inline(r.getShard())).and(notSettled));
    }
    return DSL.or(each);
  }

  /** A message of the log not copied to outbox_message. */
  static Condition noCopy() {
    return DSL.notExists(
        DSL.selectOne()
            .from(dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE)
            .where(dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE.ID.eq(OUTBOX_EVENT.ID)));
  }

  /** The messages of transactions {@code snapshot} does not see. */
  private static Condition unseen(Snapshot snapshot) {
    Condition unseen = OUTBOX_EVENT.TXID.ge(DSL.inline(snapshot.xmax()));
    if (snapshot.xip().length > 0) {
      List<Field<Long>> running = new ArrayList<>();
      for (long txid : snapshot.xip()) {
        running.add(DSL.inline(txid));
      }
      unseen = unseen.or(OUTBOX_EVENT.TXID.in(running));
    }
    return unseen;
  }
}
