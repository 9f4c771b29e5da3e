package dev.jooqoutbox.internal.repository;

import java.time.Duration;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Where a claim's window starts: a seq at or below every pending row a claim needs to see, so the
 * window never walks the rows sent before it. On PostgreSQL a sent row leaves the pending index
 * only when vacuum removes its entry; until then a walk from the index's first entry steps over
 * every row sent since the last vacuum (with autovacuum off, 5,177 pages a claim after 975,000
 * messages of a drain, against 369 at its start).
 *
 * <p>The floor is the oldest pending seq as observed one refresh period earlier, never the latest
 * observation: a row can become pending below a fresh observation (a writer's transaction that
 * inserted it commits only after later rows were seen; an operator requeues a dead letter), and the
 * lag lets such a row be seen by the window. A row of a transaction that commits within one period
 * of its insert is never below the floor when it commits; any other is found by the next refresh
 * but one, or earlier by the head scan (which is not bounded by the floor) whenever a claim's
 * window comes up empty or full and short (see {@link MessageClaimer}). Whether a row is its
 * aggregate's oldest pending message is always probed without the floor, so the floor never lets a
 * message overtake an older one of its aggregate.
 *
 * <p>Each refresh reads from the first entry of the pending index, so its cost grows with the rows
 * sent since the last vacuum; the period stretches to {@value #REFRESH_COST_SHARE} times the last
 * refresh's duration, keeping refreshes under 1/{@value #REFRESH_COST_SHARE} of the time.
 * Thread-safe.
 */
final class ClaimFloor {

  /** The shortest time between two refreshes, and the lag of the floor behind its observation. */
  static final Duration PERIOD = Duration.ofSeconds(1);

  private static final long REFRESH_COST_SHARE = 50;

  private final LongSupplier nanoTime;
  private long floor = Long.MIN_VALUE;
  private long observed = Long.MIN_VALUE;
  private long refreshedAt;
  private long period = PERIOD.toNanos();
  private boolean refreshed;

  ClaimFloor(LongSupplier nanoTime) {
    this.nanoTime = nanoTime;
  }

  /**
   * The floor for a claim starting now; runs {@code oldestPending} (the oldest pending seq, or one
   * past the newest row, or null on an empty table) when a refresh is due.
   */
  synchronized long current(Supplier<Long> oldestPending) {
    long now = nanoTime.getAsLong();
    if (!refreshed || now - refreshedAt >= period) {
      Long seen = oldestPending.get();
      long took = nanoTime.getAsLong() - now;
      floor = observed;
      observed = seen == null ? floor : seen;
      refreshedAt = now;
      refreshed = true;
      period = Math.max(PERIOD.toNanos(), REFRESH_COST_SHARE * took);
    }
    return floor;
  }
}
