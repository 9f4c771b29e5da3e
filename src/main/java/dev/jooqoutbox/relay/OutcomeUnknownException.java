package dev.jooqoutbox.relay;

import java.util.Optional;

/**
 * Thrown by a handler (or completing an asynchronous handler's stage) when it called a remote
 * system and could not learn the result, typically a time-out after the request left. The message
 * is neither retried (that could, say, charge a card twice) nor dead-lettered: it becomes
 * <em>outcome unknown</em>, keeps blocking the later messages of its aggregate, and waits for the
 * topic's {@link OutboxReconciler} (see {@link OutboxRelayBuilder#reconciler}) or an operator
 * ({@code OutboxAdmin.resolve}). Its remote reference, when given, is stored and never replaced.
 *
 * <p>Only this exception itself counts, not one that wraps it (a {@code CompletionException} around
 * an asynchronous stage's failure is unwrapped).
 */
public class OutcomeUnknownException extends Exception {

  private static final long serialVersionUID = 1L;

  private final String remoteRef;

  /** Outcome unknown, without a remote reference. */
  public OutcomeUnknownException(String message) {
    this(message, null, null);
  }

  /**
   * @param remoteRef the remote system's reference for the call (its request id), or null
   * @param cause what went wrong (a time-out), or null
   */
  public OutcomeUnknownException(String message, String remoteRef, Throwable cause) {
    super(message, cause);
    this.remoteRef = remoteRef;
  }

  /** The remote system's reference for the call, when the handler knew it. */
  public Optional<String> remoteRef() {
    return Optional.ofNullable(remoteRef);
  }
}
