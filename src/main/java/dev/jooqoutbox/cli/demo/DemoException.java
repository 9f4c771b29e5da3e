package dev.jooqoutbox.cli.demo;

/**
 * An expected reason the demo cannot run (bad URL, unreachable database, someone else's outbox
 * rows): {@link DemoCommand} prints the message on stderr, without a stack trace, and exits 1.
 */
final class DemoException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  DemoException(String message) {
    super(message);
  }

  DemoException(String message, Throwable cause) {
    super(message, cause);
  }
}
