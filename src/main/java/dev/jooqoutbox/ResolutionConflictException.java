package dev.jooqoutbox;

/**
 * A resolution of an outcome-unknown message was refused: the message is not outcome-unknown and
 * was not resolved that way (another resolution came first, or it never was outcome-unknown).
 * Nothing was changed. Resolving again the way it was resolved is not an error, nor is an id no
 * message has ({@link OutboxAdmin#resolve} returns false).
 */
public final class ResolutionConflictException extends OutboxException {

  private static final long serialVersionUID = 1L;

  private final String messageId;

  public ResolutionConflictException(String messageId, String message) {
    super(message);
    this.messageId = messageId;
  }

  /** The id the resolution named. */
  public String messageId() {
    return messageId;
  }
}
