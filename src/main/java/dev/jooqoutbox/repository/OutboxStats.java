package dev.jooqoutbox.repository;

import java.time.Duration;

/**
 * Counts of the outbox at one moment.
 *
 * @param pending not sent and not dead (includes leased and backing-off rows)
 * @param leased pending rows a relay holds right now (lease not expired)
 * @param dead dead letters waiting for a requeue or a purge
 * @param sentAwaitingPurge sent rows the purge has not deleted yet
 * @param oldestPendingAge age of the oldest pending message, {@link Duration#ZERO} when none
 */
public record OutboxStats(
    long pending, long leased, long dead, long sentAwaitingPurge, Duration oldestPendingAge) {}
