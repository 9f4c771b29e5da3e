package dev.jooqoutbox.cli.demo;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * What the demo's threads count while it runs, for the progress bar and the summary. The verdict
 * never rests on these: the invariants are checked against the database.
 */
final class DemoCounters {

  private final AtomicLong written = new AtomicLong();
  private final AtomicLong booked = new AtomicLong();
  private final AtomicLong retried = new AtomicLong();
  private final AtomicLong dead = new AtomicLong();
  private final AtomicLong duplicatesDropped = new AtomicLong();
  private final AtomicLongArray committingNanos;
  private final AtomicLongArray latencyNanos;

  /** For orders with ids {@code 1..orders}. */
  DemoCounters(int orders) {
    this.committingNanos = new AtomicLongArray(orders);
    this.latencyNanos = new AtomicLongArray(orders);
  }

  /** The transaction of order {@code orderId} is about to commit. */
  void committing(long orderId) {
    committingNanos.set(index(orderId), System.nanoTime());
  }

  void countWritten() {
    written.incrementAndGet();
  }

  /**
   * The ledger booked order {@code orderId} in a handler call that started at {@code startedNanos}:
   * the order's end-to-end latency is commit to that start, retries included.
   */
  void countBooked(long orderId, long startedNanos) {
    int i = index(orderId);
    latencyNanos.set(i, Math.max(1, startedNanos - committingNanos.get(i)));
    booked.incrementAndGet();
  }

  void countRetry() {
    retried.incrementAndGet();
  }

  void countDead() {
    dead.incrementAndGet();
  }

  void countDuplicate() {
    duplicatesDropped.incrementAndGet();
  }

  long written() {
    return written.get();
  }

  long booked() {
    return booked.get();
  }

  long retried() {
    return retried.get();
  }

  long dead() {
    return dead.get();
  }

  long duplicatesDropped() {
    return duplicatesDropped.get();
  }

  /** The latencies of the booked orders, in nanoseconds, sorted. */
  long[] sortedLatencies() {
    long[] values = new long[latencyNanos.length()];
    int n = 0;
    for (int i = 0; i < values.length; i++) {
      long v = latencyNanos.get(i);
      if (v > 0) {
        values[n++] = v;
      }
    }
    long[] sorted = Arrays.copyOf(values, n);
    Arrays.sort(sorted);
    return sorted;
  }

  /** Nearest-rank percentile {@code p} (0-100] of {@code sorted}; 0 when empty. */
  static long percentile(long[] sorted, double p) {
    if (sorted.length == 0) {
      return 0;
    }
    int rank = (int) Math.ceil(p / 100.0 * sorted.length);
    return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
  }

  private int index(long orderId) {
    return Math.toIntExact(orderId - 1);
  }
}
