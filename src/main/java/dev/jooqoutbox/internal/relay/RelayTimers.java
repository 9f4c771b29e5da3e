package dev.jooqoutbox.internal.relay;

import java.time.Duration;

/**
 * Where the relay's periodic tasks run (the heartbeat, the watchdog's scan) and the time they
 * measure. In production each task has a thread of its own and the time is {@link System#nanoTime};
 * a test supplies timers it drives by hand, so that what depends on time (a lease kept alive, a
 * handler timed out) happens when the test moves time, not after a sleep.
 */
public interface RelayTimers {

  /**
   * Runs {@code task} every {@code period}, the first time one period from now, apart from the
   * other tasks: one that waits (on a lock, a slow statement) never delays another. Until {@link
   * #close}.
   */
  void every(String name, Duration period, Runnable task);

  /**
   * The time the tasks measure, in nanoseconds from an arbitrary origin, as {@link
   * System#nanoTime}.
   */
  long nanoTime();

  /** Stops every task; a task running now finishes. */
  void close();

  /** Timers on daemon threads of their own, one for each task, and {@link System#nanoTime}. */
  static RelayTimers onThreads() {
    return new ThreadTimers();
  }
}
