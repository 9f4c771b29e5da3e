package dev.jooqoutbox.internal.repository;

import dev.jooqoutbox.OutboxMessage;
import java.time.Instant;

/**
 * An outcome-unknown message leased for reconciliation.
 *
 * @param remoteRef the stored remote reference, or null
 * @param since when the outcome became unknown
 */
public record UnknownClaim(OutboxMessage message, String remoteRef, Instant since) {}
