package dev.jooqoutbox.internal.repository;

import java.util.Set;

/**
 * The claims a relay holds in flight, for its next claim: their tokens, and how many of their rows
 * are not settled yet. A claim may then take a run of an aggregate that starts right behind this
 * relay's own leased rows of it (the relay delivers it after them, or gives it back if they fail),
 * and reads that many more pending rows so that its own rows do not crowd the window.
 *
 * @param tokens the claim tokens with unsettled rows
 * @param rows how many rows of those claims are unsettled
 */
public record HeldClaims(Set<String> tokens, int rows) {

  /** No claim in flight: a claim takes runs only from the heads of aggregates. */
  public static final HeldClaims NONE = new HeldClaims(Set.of(), 0);

  public HeldClaims {
    tokens = Set.copyOf(tokens);
    if (rows < 0) {
      throw new IllegalArgumentException("rows must not be negative, was " + rows);
    }
  }
}
