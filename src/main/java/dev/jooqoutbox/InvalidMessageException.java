package dev.jooqoutbox;

/**
 * A write was refused because one argument is invalid: null, empty, too long, badly formed, or a
 * payload that does not serialize or is over the size limit. Nothing was written, and the caller's
 * transaction is untouched (the check runs before any statement).
 */
public final class InvalidMessageException extends OutboxException {

  private static final long serialVersionUID = 1L;

  private final String argument;

  public InvalidMessageException(String argument, String problem) {
    super(argument + " " + problem);
    this.argument = argument;
  }

  public InvalidMessageException(String argument, String problem, Throwable cause) {
    super(argument + " " + problem, cause);
    this.argument = argument;
  }

  /** The name of the refused argument, for example {@code "topic"}. */
  public String argument() {
    return argument;
  }
}
