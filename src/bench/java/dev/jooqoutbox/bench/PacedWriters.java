package dev.jooqoutbox.bench;

import dev.jooqoutbox.Outbox;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.jooq.DSLContext;

/**
 * Writers on a schedule: transaction {@code k} of {@code TX_MESSAGES} messages is due at {@code t0
 * + k * txNanos}, and whichever of the threads is free takes the next one due. Behind schedule a
 * writer does not wait, so the rate reached shows it. Each message carries its transaction's number
 * in a header, and {@link #commitAt} holds the time just before that transaction's commit (after
 * its last write), for the handler to measure the lag from.
 */
final class PacedWriters {

  static final int TX_MESSAGES = 10;
  static final String TX_HEADER = "bench-tx";

  final AtomicLongArray commitAt;
  final LongAdder written = new LongAdder();
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final AtomicLong ticket = new AtomicLong();
  private final List<Thread> threads = new ArrayList<>();
  private final Outbox outbox;
  private final DSLContext dsl;
  private final long txNanos;
  private volatile long t0;

  PacedWriters(Outbox outbox, DSLContext dsl, int transactions, long txNanos) {
    this.outbox = outbox;
    this.dsl = dsl;
    this.commitAt = new AtomicLongArray(transactions);
    this.txNanos = txNanos;
  }

  /** Starts {@code writers} threads on the schedule that begins at {@code t0} (nanoTime). */
  void start(int writers, long t0) {
    this.t0 = t0;
    for (int w = 0; w < writers; w++) {
      Thread t = new Thread(this::write, "bench-paced-writer-" + w);
      t.setDaemon(true);
      threads.add(t);
      t.start();
    }
  }

  boolean failed() {
    return failure.get() != null;
  }

  /** Waits for the schedule to end; throws what a writer failed with. */
  void join() throws InterruptedException {
    for (Thread t : threads) {
      t.join();
    }
    if (failure.get() != null) {
      throw new IllegalStateException("a writer failed: " + failure.get(), failure.get());
    }
  }

  private void write() {
    try {
      for (int k = (int) ticket.getAndIncrement();
          k < commitAt.length() && failure.get() == null;
          k = (int) ticket.getAndIncrement()) {
        LockSupport.parkNanos(t0 + k * txNanos - System.nanoTime());
        int tx = k;
        dsl.transaction(
            c -> {
              for (int j = 0; j < TX_MESSAGES; j++) {
                long i = (long) tx * TX_MESSAGES + j;
                outbox
                    .message(Workload.aggregate(i), BenchDatabase.TOPIC, Workload.OrderPlaced.of(i))
                    .header(TX_HEADER, Integer.toString(tx))
                    .write(c.dsl());
              }
              // Before the commit: the relay may see the rows before this thread runs again.
              commitAt.set(tx, System.nanoTime());
            });
        written.add(TX_MESSAGES);
      }
    } catch (Throwable e) {
      failure.compareAndSet(null, e);
    }
  }
}
