package dev.jooqoutbox.cli;

/**
 * An expected failure of a command (unreachable database, unmigrated schema, nothing to requeue):
 * {@link OutboxCli} prints its message on stderr, without a stack trace, and exits 1.
 */
final class CliException extends RuntimeException {

  CliException(String message) {
    super(message);
  }

  CliException(String message, Throwable cause) {
    super(message, cause);
  }
}
