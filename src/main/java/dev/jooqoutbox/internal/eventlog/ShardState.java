package dev.jooqoutbox.internal.eventlog;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;

/**
 * A shard this relay holds: the chunks read and not yet settled, where the next read starts, and
 * the position every message before which is settled (what outbox_shard gets). Guarded by the
 * {@link EventStore}'s monitor.
 */
final class ShardState {

  final short shard;

  /** The cursor outbox_shard holds for this shard as this relay last wrote it. */
  Cursor written;

  /** Where every message before is settled: the chunks behind it are gone. */
  Cursor settled;

  /** Where the next read starts: after the last chunk. */
  Cursor next;

  /** Whether the last read filled its chunk, so that more may be waiting. */
  boolean more = true;

  /**
   * Messages up to this seq may have been handed out by the relay that held the shard before and
   * stopped without giving it back (a crash): each counts as an attempt (-1: none).
   */
  final long previousMark;

  /**
   * The mark outbox_shard holds for this shard as this relay last wrote it (or as it was taken):
   * nothing past it may be handed out, so that whoever takes the shard over after a crash of this
   * relay counts every message this one may have handed out.
   */
  long writtenMark;

  /** Leaving this relay: read no more, give it back once everything read is settled. */
  boolean leaving;

  private final Deque<LogEvent.Chunk> chunks = new ArrayDeque<>();

  ShardState(short shard, Cursor stored, long previousMark) {
    this.shard = shard;
    this.written = stored;
    this.settled = stored;
    this.next = stored;
    this.previousMark = previousMark;
    this.writtenMark = previousMark;
  }

  void add(LogEvent.Chunk chunk) {
    chunks.addLast(chunk);
    next = chunk.after;
  }

  Iterable<LogEvent.Chunk> chunks() {
    return chunks;
  }

  /**
   * Moves {@link #settled} past the leading chunks that are settled whole, then past the settled
   * events at the head of the first one that is not: the position is as precise as a message, so
   * that whoever reads on from it delivers again only what was not settled.
   */
  void advance() {
    for (Iterator<LogEvent.Chunk> it = chunks.iterator(); it.hasNext(); ) {
      LogEvent.Chunk c = it.next();
      if (c.open > 0) {
        LogEvent last = null;
        for (LogEvent e : c.events) {
          if (e.state != LogEvent.State.DONE) {
            break;
          }
          last = e;
        }
        if (last != null) {
          settled = c.after(last);
        }
        return;
      }
      settled = c.after;
      it.remove();
    }
  }

  /** Whether every message read from it is settled. */
  boolean quiet() {
    return chunks.isEmpty();
  }

  /** Whether a message read is waiting to be handed out. */
  boolean hasBuffered() {
    for (LogEvent.Chunk c : chunks) {
      for (LogEvent e : c.events) {
        if (e.state == LogEvent.State.BUFFERED) {
          return true;
        }
      }
    }
    return false;
  }

  /** Whether no message read from it is with the engine or being copied. */
  boolean nothingOut() {
    for (LogEvent.Chunk c : chunks) {
      for (LogEvent e : c.events) {
        if (e.state == LogEvent.State.HANDED || e.state == LogEvent.State.PARKING) {
          return false;
        }
      }
    }
    return true;
  }

  /** Whether {@link #settled} moved since this relay last wrote it. */
  boolean moved() {
    return !settled.equals(written);
  }
}
