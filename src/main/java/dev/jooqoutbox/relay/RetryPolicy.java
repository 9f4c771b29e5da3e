package dev.jooqoutbox.relay;

import java.time.Duration;

/**
 * How the messages of one topic are retried after a failed attempt (see {@link
 * OutboxRelayBuilder#retryPolicy}): at most {@code maxAttempts} attempts, then a dead letter;
 * before each retry an exponential, capped backoff with equal jitter, doubling from {@code
 * backoffInitial} up to {@code backoffMax}. Checked by {@link OutboxRelayBuilder#build()}.
 */
public record RetryPolicy(int maxAttempts, Duration backoffInitial, Duration backoffMax) {}
