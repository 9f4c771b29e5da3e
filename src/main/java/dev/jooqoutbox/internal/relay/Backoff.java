package dev.jooqoutbox.internal.relay;

import java.time.Duration;
import java.util.SplittableRandom;

/**
 * Exponential, capped backoff with equal jitter: before attempt {@code n + 1} the relay waits
 * {@code d/2 + random(0, d/2)} where {@code d = min(max, initial * 2^(n-1))}. The jitter spreads
 * the retries of messages that failed together; the fixed half keeps a floor under the wait. The
 * random part is drawn from the message and the attempt ({@code salt}), not from a shared source:
 * it spreads different messages all the same, and a run of the relay replays exactly (the seeded
 * simulation of the engine relies on that).
 */
public record Backoff(Duration initial, Duration max) {

  /** The wait after failed attempt {@code attempt} (1-based) of the message {@code salt} names. */
  public Duration after(int attempt, long salt) {
    long initialMillis = initial.toMillis();
    long maxMillis = max.toMillis();
    int doublings = Math.min(Math.max(attempt - 1, 0), 62);
    long full = initialMillis > (maxMillis >> doublings) ? maxMillis : initialMillis << doublings;
    full = Math.min(full, maxMillis);
    long half = full / 2;
    long jitter = new SplittableRandom(salt * 31 + attempt).nextLong(full - half + 1);
    return Duration.ofMillis(half + jitter);
  }
}
