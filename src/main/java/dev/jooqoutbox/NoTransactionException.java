package dev.jooqoutbox;

/**
 * A write was refused because its connection is in autocommit mode: there is no transaction for the
 * message to join, so it could commit without the business data (or survive its rollback). Run the
 * write inside {@code dsl.transaction(...)} or a transaction your framework manages.
 */
public final class NoTransactionException extends OutboxException {

  private static final long serialVersionUID = 1L;

  public NoTransactionException(String message) {
    super(message);
  }
}
