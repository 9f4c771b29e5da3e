package dev.jooqoutbox;

/** What {@link OutboxAdmin#addRemoteRef} did: a stored remote reference is never replaced. */
public enum RemoteRefResult {
  /** The message had no remote reference: the given one is stored now. */
  ADDED,
  /**
   * The message already had a remote reference, possibly this same one: it is kept, and nothing
   * changed. {@link OutboxAdmin#unknownOutcomes} or {@link OutboxAdmin#message} shows the stored
   * one.
   */
  KEPT,
  /** No message has this id (it never existed, or was purged): nothing changed. */
  NO_MESSAGE
}
