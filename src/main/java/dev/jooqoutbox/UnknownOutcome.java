package dev.jooqoutbox;

import java.time.Instant;

/**
 * A message whose handler reported that it could not learn what became of its call to a remote
 * system: it waits for a reconciler or an operator ({@link OutboxAdmin#resolve}), blocking the
 * later messages of its aggregate meanwhile. Carries no payload.
 *
 * @param attempts claims counted so far, the unknown attempt included
 * @param since when the handler reported the outcome unknown
 * @param remoteRef the remote system's reference for the call, or null when none is known
 * @param lastError what the handler said about it
 * @param nextCheckAt when a reconciler, if the topic has one, asks about it next
 */
public record UnknownOutcome(
    long seq,
    String id,
    String aggregate,
    String topic,
    int attempts,
    Instant since,
    String remoteRef,
    String lastError,
    Instant nextCheckAt) {}
