package dev.jooqoutbox.internal.eventlog;

import static dev.jooqoutbox.schema.Tables.OUTBOX_RELAY;
import static dev.jooqoutbox.schema.Tables.OUTBOX_SHARD;

import dev.jooqoutbox.schema.tables.records.OutboxShardRecord;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jooq.DSLContext;
import org.jooq.Query;

/**
 * The shards' leases and positions in outbox_shard, and the relays alive in outbox_relay. A shard
 * is held by one relay at a time: it takes one that nobody holds or whose lease ran out, and every
 * later write of it is a compare-and-swap on its relay id, so a relay that lost a shard learns it
 * at its next write and changes nothing. These rows are written a few times a second at most, never
 * per message.
 */
final class ShardLeases {

  /** A shard just taken: its position, and the previous holder's mark if it crashed (or -1). */
  record Taken(short shard, Cursor cursor, long previousMark) {}

  /** What a held shard's row gets: the settled position and the highest seq it may hand out. */
  record ShardWrite(Cursor settled, long mark) {}

  /** This machine's name, as operators see it beside each relay (outbox_relay.host). */
  private static final String HOST = hostName();

  private final DSLContext dsl;
  private final String relayId;
  private final Instant startedAt;

  ShardLeases(DSLContext dsl, String relayId, Instant startedAt) {
    this.dsl = dsl;
    this.relayId = relayId;
    this.startedAt = startedAt;
  }

  String relayId() {
    return relayId;
  }

  DSLContext dsl() {
    return dsl;
  }

  /** Says this relay is alive until {@code until}; returns how many are alive at {@code now}. */
  int heartbeat(Instant now, Instant until) {
    dsl.insertInto(OUTBOX_RELAY)
        .set(OUTBOX_RELAY.RELAY_ID, relayId)
        .set(OUTBOX_RELAY.HOST, HOST)
        .set(OUTBOX_RELAY.PID, ProcessHandle.current().pid())
        .set(OUTBOX_RELAY.STARTED_AT, startedAt)
        .set(OUTBOX_RELAY.LEASE_UNTIL, until)
        .onConflict(OUTBOX_RELAY.RELAY_ID)
        .doUpdate()
        .set(OUTBOX_RELAY.LEASE_UNTIL, until)
        .execute();
    return alive(now);
  }

  /** How many relays are alive at {@code now} (this one at least). */
  int alive(Instant now) {
    return Math.max(1, dsl.fetchCount(OUTBOX_RELAY, OUTBOX_RELAY.LEASE_UNTIL.ge(now)));
  }

  /** Takes up to {@code count} shards that nobody holds or whose lease ran out by {@code now}. */
  List<Taken> take(int count, Instant now, Instant until) {
    if (count <= 0) {
      return List.of();
    }
    return dsl.transactionResult(
        tx -> {
          List<OutboxShardRecord> free =
              tx.dsl()
                  .selectFrom(OUTBOX_SHARD)
                  .where(OUTBOX_SHARD.RELAY_ID.isNull().or(OUTBOX_SHARD.LEASE_UNTIL.le(now)))
                  .orderBy(OUTBOX_SHARD.SHARD)
                  .limit(count)
                  .forUpdate()
                  .skipLocked()
                  .fetch();
          List<Taken> taken = new ArrayList<>();
          for (OutboxShardRecord r : free) {
            tx.dsl()
                .update(OUTBOX_SHARD)
                .set(OUTBOX_SHARD.RELAY_ID, relayId)
                .set(OUTBOX_SHARD.LEASE_UNTIL, until)
                .where(OUTBOX_SHARD.SHARD.eq(r.getShard()))
                .execute();
            // A holder that gave the shard back cleared its own mark (keeping only that of a
            // crashed relay before it); one that did not may have handed out messages up to it.
            boolean crashed = r.getReadMark() != null;
            taken.add(
                new Taken(
                    r.getShard(),
                    Cursor.stored(
                        r.getLowerSnapshot(),
                        r.getUpperSnapshot(),
                        r.getAfterTxid(),
                        r.getAfterSeq()),
                    crashed ? r.getReadMark() : -1));
          }
          return taken;
        });
  }

  /**
   * Writes the held shards' rows, each only if this relay still holds it, with the lease extended
   * to {@code until}; returns the shards it no longer holds.
   */
  Set<Short> write(Map<Short, ShardWrite> shards, Instant until) {
    if (shards.isEmpty()) {
      return Set.of();
    }
    List<Short> order = new ArrayList<>(shards.keySet());
    List<Query> updates = new ArrayList<>();
    for (short shard : order) {
      ShardWrite w = shards.get(shard);
      Cursor c = w.settled();
      updates.add(
          dsl.update(OUTBOX_SHARD)
              .set(OUTBOX_SHARD.LEASE_UNTIL, until)
              .set(OUTBOX_SHARD.LOWER_SNAPSHOT, c.lower().text())
              .set(OUTBOX_SHARD.UPPER_SNAPSHOT, c.inBatch() ? c.upper().text() : null)
              .set(OUTBOX_SHARD.AFTER_TXID, c.inBatch() ? c.afterTxid() : null)
              .set(OUTBOX_SHARD.AFTER_SEQ, c.inBatch() ? c.afterSeq() : null)
              .set(OUTBOX_SHARD.READ_MARK, w.mark())
              .where(OUTBOX_SHARD.SHARD.eq(shard))
              .and(OUTBOX_SHARD.RELAY_ID.eq(relayId)));
    }
    int[] counts = dsl.transactionResult(tx -> tx.dsl().batch(updates).execute());
    Set<Short> lost = new HashSet<>();
    for (int i = 0; i < counts.length; i++) {
      if (counts[i] == 0) {
        lost.add(order.get(i));
      }
    }
    return lost;
  }

  /**
   * Gives {@code shards} back at their settled positions. Each keeps the mark of a crashed relay it
   * was taken over from ({@link ShardWrite#mark()}, -1 for none): whoever takes it next counts an
   * attempt for the messages up to that mark it finds, as the relay giving it back would have;
   * without one it starts at the position and counts none.
   */
  void giveBack(Map<Short, ShardWrite> shards) {
    for (Map.Entry<Short, ShardWrite> s : shards.entrySet()) {
      Cursor c = s.getValue().settled();
      long mark = s.getValue().mark();
      dsl.update(OUTBOX_SHARD)
          .set(OUTBOX_SHARD.RELAY_ID, (String) null)
          .set(OUTBOX_SHARD.LEASE_UNTIL, (Instant) null)
          .set(OUTBOX_SHARD.READ_MARK, mark >= 0 ? mark : null)
          .set(OUTBOX_SHARD.LOWER_SNAPSHOT, c.lower().text())
          .set(OUTBOX_SHARD.UPPER_SNAPSHOT, c.inBatch() ? c.upper().text() : null)
          .set(OUTBOX_SHARD.AFTER_TXID, c.inBatch() ? c.afterTxid() : null)
          .set(OUTBOX_SHARD.AFTER_SEQ, c.inBatch() ? c.afterSeq() : null)
          .where(OUTBOX_SHARD.SHARD.eq(s.getKey()))
          .and(OUTBOX_SHARD.RELAY_ID.eq(relayId))
          .execute();
    }
  }

  /** This relay stops: it is no longer counted among the relays alive. */
  void leave() {
    dsl.deleteFrom(OUTBOX_RELAY).where(OUTBOX_RELAY.RELAY_ID.eq(relayId)).execute();
  }

  /** Removes relays whose lease ran out long ago (crashed): they count no more anyway. */
  void forgetStale(Instant before) {
    dsl.deleteFrom(OUTBOX_RELAY).where(OUTBOX_RELAY.LEASE_UNTIL.lt(before)).execute();
  }

  /** The shards' rows, for gauges and operators. */
  List<OutboxShardRecord> all() {
    return dsl.selectFrom(OUTBOX_SHARD).orderBy(OUTBOX_SHARD.SHARD).fetch();
  }

  private static String hostName() {
    try {
      return java.net.InetAddress.getLocalHost().getHostName();
    } catch (java.io.IOException e) {
      return "unknown";
    }
  }

  /** Shards by their settled positions, as stored. */
  static Cursor cursorOf(OutboxShardRecord r) {
    return Cursor.stored(
        r.getLowerSnapshot(), r.getUpperSnapshot(), r.getAfterTxid(), r.getAfterSeq());
  }
}
