package dev.jooqoutbox;

/**
 * How an outcome-unknown message is resolved, by a reconciler or by an operator ({@link
 * OutboxAdmin#resolve}).
 */
public enum Resolution {
  /** The remote system did receive it: the message is marked sent. */
  SENT,
  /**
   * The remote system did not receive it: the message is delivered again, at once, without the
   * unknown attempt counting against its maximum attempts.
   */
  RETRY,
  /** Give up on it: the message becomes a dead letter (and stops blocking its aggregate). */
  DEAD
}
