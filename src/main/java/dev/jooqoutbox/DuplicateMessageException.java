package dev.jooqoutbox;

/**
 * A write gave a caller message id that is already stored with other content (aggregate, topic,
 * payload or headers). The same id with the same content is not an error: it returns the id and
 * writes nothing. Nothing was written; on PostgreSQL the caller's transaction stays usable because
 * the insert uses {@code ON CONFLICT DO NOTHING}. The message quotes the id, so that a stray space
 * or an empty id shows.
 */
public final class DuplicateMessageException extends OutboxException {

  private static final long serialVersionUID = 1L;

  private final String messageId;

  public DuplicateMessageException(String messageId) {
    super("message id \"" + messageId + "\" is already stored with other content");
    this.messageId = messageId;
  }

  public String messageId() {
    return messageId;
  }
}
