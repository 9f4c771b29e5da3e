package dev.jooqoutbox.internal.repository;

import java.time.Duration;
import java.time.Instant;
import java.util.Set;

/**
 * One claim's arguments, for {@link JooqOutboxRepository#claim(ClaimRequest)}: up to {@code limit}
 * ready messages of {@code topics}, in runs of at most {@code maxRun} per aggregate, leased to
 * {@code claimToken} until {@code now + lease}.
 *
 * @param held the claims the claimer holds in flight, behind whose rows a run may start; {@link
 *     HeldClaims#NONE} for runs only from the heads of aggregates
 */
public record ClaimRequest(
    Set<String> topics,
    int limit,
    int maxRun,
    Duration lease,
    String claimToken,
    Instant now,
    HeldClaims held) {

  /**
   * @throws IllegalArgumentException when {@code maxRun} is below 1
   */
  public ClaimRequest {
    if (maxRun < 1) {
      throw new IllegalArgumentException("maxRun must be at least 1, was " + maxRun);
    }
  }

  /** This request for up to {@code limit} messages. */
  public ClaimRequest withLimit(int limit) {
    return new ClaimRequest(topics, limit, maxRun, lease, claimToken, now, held);
  }
}
