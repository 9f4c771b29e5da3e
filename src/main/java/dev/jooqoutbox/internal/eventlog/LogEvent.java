package dev.jooqoutbox.internal.eventlog;

import dev.jooqoutbox.OutboxMessage;

/**
 * A message read from the log and not yet behind its shard's settled position, with what this relay
 * did with it. Guarded by the {@link EventStore}'s monitor.
 */
final class LogEvent {

  enum State {
    /** Read, not handed to the relay's engine (or given back to be handed again). */
    BUFFERED,
    /** With the engine, under {@link #token}. */
    HANDED,
    /** Being copied to outbox_message; not settled until that commits. */
    PARKING,
    /** Delivered, or parked: behind the shard's position once the messages before it are too. */
    DONE
  }

  final OutboxMessage message;
  final long txid;
  final short shard;
  final java.time.Instant availableAt;

  /** Why its headers could not be read (edited by hand), or null: dead-lettered unread. */
  String unreadable;

  /** When read, a pending row of its aggregate was in outbox_message, or one was parked since. */
  boolean behindParked;

  State state = State.BUFFERED;
  String token;
  Chunk chunk;

  LogEvent(
      OutboxMessage message,
      long txid,
      short shard,
      java.time.Instant availableAt,
      boolean behindParked) {
    this.message = message;
    this.txid = txid;
    this.shard = shard;
    this.availableAt = availableAt;
    this.behindParked = behindParked;
  }

  long seq() {
    return message.seq();
  }

  String aggregate() {
    return message.aggregate();
  }

  /** Settled: done, counted in its chunk. */
  void done() {
    if (state != State.DONE) {
      state = State.DONE;
      chunk.open--;
    }
  }

  /**
   * The events of one read of a shard, in (txid, seq) order: a stretch of the batch of the
   * transactions {@code bound} sees and {@code start.lower()} does not, ending at {@code after}.
   */
  static final class Chunk {
    final java.util.List<LogEvent> events;
    final Cursor start;
    final Cursor after;
    int open;

    Chunk(java.util.List<LogEvent> events, Cursor start, Cursor after) {
      this.events = events;
      this.start = start;
      this.after = after;
      this.open = events.size();
      events.forEach(e -> e.chunk = this);
    }

    /**
     * The position right after {@code e}, one of this chunk's events: inside the batch this chunk
     * is part of, whose bound is the snapshot it ended at, or the one it was read under.
     */
    Cursor after(LogEvent e) {
      Snapshot bound = after.inBatch() ? after.upper() : after.lower();
      return new Cursor(start.lower(), bound, e.txid, e.seq());
    }
  }
}
