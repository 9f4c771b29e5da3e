package dev.jooqoutbox.publisher;

import dev.jooqoutbox.OutboxException;

/**
 * A broker did not take a message: it refused it (a nack, an unroutable return, no stream for the
 * subject), the connection was lost before its confirmation, or it could not be reached. The stage
 * a publisher returned completes with it, so the relay counts a failed attempt and retries with
 * backoff; the message carries the broker's reason, which the relay stores as the message's last
 * error (and a dead letter's, once the attempts are used up).
 */
public class PublishException extends OutboxException {

  private static final long serialVersionUID = 1L;

  public PublishException(String message) {
    super(message);
  }

  public PublishException(String message, Throwable cause) {
    super(message, cause);
  }
}
