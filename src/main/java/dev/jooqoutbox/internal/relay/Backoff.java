package dev.jooqoutbox.internal.relay;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Exponential, capped backoff with equal jitter: before attempt {@code n + 1} the relay waits
 * {@code d/2 + random(0, d/2)} where {@code d = min(max, initial * 2^(n-1))}. The jitter spreads
 * the retries of messages that failed together; the fixed half keeps a floor under the wait.
 */
public record Backoff(Duration initial, Duration max) {

  /** The wait after failed attempt {@code attempt} (1-based). */
  public Duration after(int attempt) {
    long initialMillis = initial.toMillis();
    long maxMillis = max.toMillis();
    int doublings = Math.min(Math.max(attempt - 1, 0), 62);
    long full = initialMillis > (maxMillis >> doublings) ? maxMillis : initialMillis << doublings;
    full = Math.min(full, maxMillis);
    long half = full / 2;
    return Duration.ofMillis(half + ThreadLocalRandom.current().nextLong(full - half + 1));
  }
}
