package dev.jooqoutbox.internal.relay;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * Where the relay's timed work runs (the heartbeat, the watchdog's scan, housekeeping, the
 * reconciler), how long its threads wait (the producer's poll and its backoff after a database
 * error, the completer's backoff) and the time it measures. In production each timer is a thread of
 * its own, a wait is {@link Condition#awaitNanos} and the time is {@link System#nanoTime}; a test
 * supplies timers it drives by hand, so that what depends on time (a lease kept alive, a handler
 * timed out, a purge due, an unknown outcome asked about, a poll, a retry after an error) happens
 * when the test moves time, not after a sleep.
 */
public interface RelayTimers {

  /**
   * A timer of its own, named {@code name}: its tasks run one at a time, apart from every other
   * timer's, so that one that waits (on a lock, a slow statement) never delays another timer's.
   */
  Timer timer(String name);

  /**
   * The time the tasks measure, in nanoseconds from an arbitrary origin, as {@link
   * System#nanoTime}.
   */
  long nanoTime();

  /**
   * Waits on {@code condition}, whose {@code lock} the caller holds, until it is signalled or
   * {@code nanos} of this time have passed, as {@link Condition#awaitNanos} does: returns the nanos
   * left, zero or less once they passed. It may return early (a spurious wake-up): callers wait in
   * a loop.
   */
  long awaitNanos(Lock lock, Condition condition, long nanos) throws InterruptedException;

  /** Stops every timer; a task running now finishes. */
  void close();

  /** Timers on daemon threads of their own, and {@link System#nanoTime}. */
  static RelayTimers onThreads() {
    return new ThreadTimers();
  }

  /** One timer: its tasks run one at a time, in the order they fall due. */
  interface Timer {

    /**
     * Runs {@code task} once {@code first} has passed, then again each {@code period} after a run
     * ends, until the timers close.
     */
    void every(Duration first, Duration period, Runnable task);

    /**
     * Runs {@code task} once, when {@code delay} has passed.
     *
     * @throws RejectedExecutionException when the timers are closed
     */
    void after(Duration delay, Runnable task);
  }
}
