package dev.jooqoutbox.internal.relay;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Times out attempts that run past the maximum handling time. One map and one periodic scan, not a
 * timer task per message: registering is a map put, cheap at tens of thousands of messages a
 * second. An attempt times out at most one scan period (a tenth of the limit, 10 ms to 1 s) late.
 */
final class Watchdog {

  private final Map<Attempt, Long> deadlines = new ConcurrentHashMap<>();
  private final long limitNanos;
  private final RelayTimers timers;

  Watchdog(Duration maxHandlingTime, RelayTimers timers) {
    this.limitNanos = maxHandlingTime.toNanos();
    this.timers = timers;
  }

  /** Scans on its own timer until the timers close. */
  void start() {
    long period =
        Math.max(
            TimeUnit.MILLISECONDS.toNanos(10),
            Math.min(TimeUnit.SECONDS.toNanos(1), limitNanos / 10));
    timers.timer("watchdog").every(Duration.ofNanos(period), Duration.ofNanos(period), this::scan);
  }

  void watch(Attempt attempt) {
    deadlines.put(attempt, timers.nanoTime() + limitNanos);
  }

  void forget(Attempt attempt) {
    deadlines.remove(attempt);
  }

  private void scan() {
    long now = timers.nanoTime();
    deadlines.forEach(
        (attempt, deadline) -> {
          if (now - deadline >= 0) {
            deadlines.remove(attempt);
            attempt.timeOut();
          }
        });
  }
}
