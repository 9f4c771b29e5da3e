package dev.jooqoutbox;

/**
 * Root of every exception jooq-outbox throws on purpose. Unchecked, like jOOQ's own {@code
 * DataAccessException}; catch a subclass to handle one case.
 */
public class OutboxException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public OutboxException(String message) {
    super(message);
  }

  public OutboxException(String message, Throwable cause) {
    super(message, cause);
  }
}
