package dev.jooqoutbox;

import java.time.Duration;

/**
 * Counts of the outbox at one moment.
 *
 * @param pending not sent and not dead (includes leased and backing-off rows)
 * @param leased pending rows a relay holds right now (lease not expired)
 * @param dead dead letters waiting for a requeue or a purge
 * @param sentAwaitingPurge sent rows the purge has not deleted yet
 * @param oldestPendingAge age of the oldest pending message, {@link Duration#ZERO} when none
 * @param unknown pending rows whose outcome is unknown, waiting for a reconciler or an operator
 *     (counted in {@code pending} too)
 */
public record OutboxStats(
    long pending,
    long leased,
    long dead,
    long sentAwaitingPurge,
    Duration oldestPendingAge,
    long unknown) {

  /** Counts without outcome-unknown messages. */
  public OutboxStats(
      long pending, long leased, long dead, long sentAwaitingPurge, Duration oldestPendingAge) {
    this(pending, leased, dead, sentAwaitingPurge, oldestPendingAge, 0);
  }

  /** The totals of {@code parts}: counts added, the oldest age kept. */
  public static OutboxStats sum(Iterable<OutboxStats> parts) {
    long pending = 0;
    long leased = 0;
    long dead = 0;
    long sent = 0;
    long unknown = 0;
    Duration oldest = Duration.ZERO;
    for (OutboxStats s : parts) {
      pending += s.pending();
      leased += s.leased();
      dead += s.dead();
      sent += s.sentAwaitingPurge();
      unknown += s.unknown();
      oldest = s.oldestPendingAge().compareTo(oldest) > 0 ? s.oldestPendingAge() : oldest;
    }
    return new OutboxStats(pending, leased, dead, sent, oldest, unknown);
  }
}
