package dev.jooqoutbox.relay;

/**
 * Thrown by a handler (or completing an asynchronous handler's stage) when the message can never
 * succeed, for example a request the remote system refused for good: the message is dead-lettered
 * at once with this exception's message as its reason, without using its remaining attempts. A dead
 * letter does not block its aggregate: the relay goes on with the next message of it.
 *
 * <p>Only this exception itself counts, not one that wraps it (a {@code CompletionException} around
 * an asynchronous stage's failure is unwrapped).
 */
public class PermanentFailureException extends Exception {

  private static final long serialVersionUID = 1L;

  /**
   * @param reason stored as the dead letter's last error
   */
  public PermanentFailureException(String reason) {
    super(reason);
  }

  public PermanentFailureException(String reason, Throwable cause) {
    super(reason, cause);
  }
}
