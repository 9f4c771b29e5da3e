package dev.jooqoutbox.internal.eventlog;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;

import dev.jooqoutbox.internal.repository.MessageRows;
import dev.jooqoutbox.schema.tables.records.OutboxMessageRecord;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.jooq.DSLContext;
import org.jooq.InsertValuesStep14;
import org.jooq.JSON;

/**
 * Copies messages of the log that need a state of their own to outbox_message, where the row-state
 * store delivers them, under their seq: one message keeps one seq, and the copies of an aggregate
 * are delivered in seq order. Whoever writes takes everything decided so far, in order; a copy that
 * is there already (another relay copied it first, after taking the shard over) is skipped.
 */
final class Parking {

  /** One copy: the row outbox_message gets, and whether it was written (set when done). */
  static final class Park {
    final LogEvent event;
    final int attempts;
    final Instant availableAt;
    final String error;
    final Instant deadAt;
    final Instant unknownAt;
    final String remoteRef;

    /** The claim token the message was handed out under when it was parked, or null. */
    String handedToken;

    volatile boolean written;
    volatile boolean done;

    Park(
        LogEvent event,
        int attempts,
        Instant availableAt,
        String error,
        Instant deadAt,
        Instant unknownAt,
        String remoteRef) {
      this.event = event;
      this.attempts = attempts;
      this.availableAt = availableAt;
      this.error = error;
      this.deadAt = deadAt;
      this.unknownAt = unknownAt;
      this.remoteRef = remoteRef;
    }

    /** Pending again, due at {@code availableAt}, with {@code attempts} counted. */
    static Park pending(LogEvent e, int attempts, Instant availableAt) {
      return new Park(e, attempts, availableAt, null, null, null, null);
    }

    /** Whether the copy holds its aggregate back (pending or of unknown outcome), not dead. */
    boolean holds() {
      return deadAt == null;
    }
  }

  private final DSLContext dsl;
  private final MessageRows rows;
  private final ConcurrentLinkedQueue<Park> queue = new ConcurrentLinkedQueue<>();
  private final java.util.concurrent.atomic.AtomicLong written =
      new java.util.concurrent.atomic.AtomicLong();
  private final ReentrantLock writing = new ReentrantLock();

  Parking(DSLContext dsl, MessageRows rows) {
    this.dsl = dsl;
    this.rows = rows;
  }

  /** How many copies this relay wrote so far. */
  long written() {
    return written.get();
  }

  /** Queues {@code park}; call under the store's monitor, so the queue has the decisions' order. */
  void add(Park park) {
    queue.add(park);
  }

  /**
   * Writes everything queued, in order, unless another thread is doing so (then waits for it and
   * writes what it left); {@code onDone} learns of each copy written or skipped, outside any lock
   * of this class's callers. A failure takes the copies of the failed statement off the queue,
   * tells {@code onFailed} of each, and throws.
   */
  void flush(Consumer<Park> onDone, Consumer<Park> onFailed) {
    writing.lock();
    try {
      while (!queue.isEmpty()) {
        List<Park> batch = new ArrayList<>();
        for (Park p : queue) {
          if (batch.size() == 500) {
            break;
          }
          batch.add(p);
        }
        Set<String> written;
        try {
          written = insert(batch);
        } catch (RuntimeException e) {
          // None of them is written: each goes back to where it was, for its caller to try again.
          for (Park p : batch) {
            queue.remove(p);
            onFailed.accept(p);
          }
          throw e;
        }
        this.written.addAndGet(written.size());
        for (Park p : batch) {
          queue.remove(p);
          p.written = written.contains(p.event.message.id());
          p.done = true;
          onDone.accept(p);
        }
      }
    } finally {
      writing.unlock();
    }
  }

  private Set<String> insert(List<Park> batch) {
    InsertValuesStep14<
            OutboxMessageRecord,
            Long,
            String,
            String,
            String,
            JSON,
            JSON,
            Instant,
            Instant,
            Integer,
            String,
            Instant,
            Instant,
            String,
            String>
        insert =
            dsl.insertInto(
                OUTBOX_MESSAGE,
                OUTBOX_MESSAGE.SEQ,
                OUTBOX_MESSAGE.ID,
                OUTBOX_MESSAGE.AGGREGATE,
                OUTBOX_MESSAGE.TOPIC,
                OUTBOX_MESSAGE.PAYLOAD,
                OUTBOX_MESSAGE.HEADERS,
                OUTBOX_MESSAGE.CREATED_AT,
                OUTBOX_MESSAGE.AVAILABLE_AT,
                OUTBOX_MESSAGE.ATTEMPTS,
                OUTBOX_MESSAGE.LAST_ERROR,
                OUTBOX_MESSAGE.DEAD_AT,
                OUTBOX_MESSAGE.OUTCOME_UNKNOWN_AT,
                OUTBOX_MESSAGE.REMOTE_REF,
                OUTBOX_MESSAGE.RESOLUTION);
    for (Park p : batch) {
      var m = p.event.message;
      insert =
          insert.values(
              m.seq(),
              m.id(),
              m.aggregate(),
              m.topic(),
              JSON.json(m.payloadJson()),
              rows.headersJson(m.headers()),
              m.createdAt(),
              p.availableAt,
              p.attempts,
              p.error,
              p.deadAt,
              p.unknownAt,
              p.remoteRef,
              null);
    }
    // Rows are inserted, and their seqs drawn, in the order of the VALUES list.
    return new HashSet<>(
        insert.onConflictDoNothing().returningResult(OUTBOX_MESSAGE.ID).fetch(OUTBOX_MESSAGE.ID));
  }
}
