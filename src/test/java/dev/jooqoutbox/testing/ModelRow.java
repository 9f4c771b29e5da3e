package dev.jooqoutbox.testing;

import java.time.Instant;
import java.util.Set;

/**
 * One row as {@link ReferenceStore} holds it: the outbox table's columns that the relay's semantics
 * use.
 */
public record ModelRow(
    long seq,
    String id,
    String aggregate,
    String topic,
    Instant createdAt,
    Instant availableAt,
    int attempts,
    String claimToken,
    Instant lockedUntil,
    Instant sentAt,
    Instant deadAt,
    Instant outcomeUnknownAt,
    String lastError,
    String remoteRef,
    String resolution,
    boolean committed) {

  /** Committed, not sent, not dead. */
  public boolean pending() {
    return committed && sentAt == null && deadAt == null;
  }

  /** Its lease runs at {@code now}. */
  public boolean leasedAt(Instant now) {
    return lockedUntil != null && lockedUntil.isAfter(now);
  }

  /** A claim of {@code topics} at {@code now} may take it, older rows allowing. */
  public boolean ready(Set<String> topics, Instant now) {
    return pending()
        && outcomeUnknownAt == null
        && !availableAt.isAfter(now)
        && !leasedAt(now)
        && topics.contains(topic);
  }

  boolean ownedBy(String token) {
    return pending() && token.equals(claimToken);
  }

  ModelRow with(Instant lockedUntil, String claimToken) {
    return new RowBuilder(this).lockedUntil(lockedUntil).claimToken(claimToken).build();
  }
}
