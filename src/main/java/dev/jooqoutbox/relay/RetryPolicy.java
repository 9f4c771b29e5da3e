package dev.jooqoutbox.relay;

import java.time.Duration;

/**
 * How the messages of one topic are retried after a failed attempt (see {@link
 * OutboxRelay.Builder#retryPolicy}): at most {@code maxAttempts} attempts, then a dead letter;
 * before each retry an exponential, capped backoff with equal jitter, doubling from {@code
 * backoffInitial} up to {@code backoffMax}. Checked by {@link OutboxRelay.Builder#build()}.
 */
public record RetryPolicy(int maxAttempts, Duration backoffInitial, Duration backoffMax) {}
