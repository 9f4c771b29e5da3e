package dev.jooqoutbox;

/** Where a message is in its life, as {@link OutboxAdmin#message} reads it. */
public enum MessageStatus {
  /** Waiting for a relay: ready, backing off after a failure, or blocked by an older message. */
  PENDING,
  /** Held by a relay whose lease has not run out: its handler may be running now. */
  LEASED,
  /**
   * Its handler could not learn what became of its call to a remote system: never claimed for
   * delivery again until a reconciler or an operator resolves it; blocks its aggregate meanwhile.
   */
  OUTCOME_UNKNOWN,
  /** Delivered: its handler returned. Kept until the purge deletes it. */
  SENT,
  /** A dead letter: kept until requeued or purged on purpose. */
  DEAD
}
