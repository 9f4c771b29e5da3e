package dev.jooqoutbox.cli.demo;

import org.slf4j.LoggerFactory;

/**
 * Keeps the relay's per-failure warnings off the terminal while the demo draws its progress bar:
 * injected failures are expected, and the summary counts them. Dead letters (errors) still show.
 * Only logback (the CLI's backend) is adjusted; with any other backend this does nothing.
 */
final class DemoLogging {

  private static final String RELAY_LOGGER = "dev.jooqoutbox.relay";

  private DemoLogging() {}

  /** Undoes a change of level; closing twice is harmless. */
  interface Restore extends AutoCloseable {
    @Override
    void close();
  }

  /** Raises the relay's log level to ERROR until the returned handle is closed. */
  static Restore quietRelay() {
    if (!LoggerFactory.getILoggerFactory().getClass().getName().startsWith("ch.qos.logback.")) {
      return () -> {};
    }
    return Logback.raise(RELAY_LOGGER);
  }

  /** Touches logback classes only when logback is the backend (it is an optional dependency). */
  private static final class Logback {
    static Restore raise(String name) {
      var logger = (ch.qos.logback.classic.Logger) LoggerFactory.getLogger(name);
      ch.qos.logback.classic.Level previous = logger.getLevel();
      if (!logger.isEnabledFor(ch.qos.logback.classic.Level.WARN)) {
        return () -> {};
      }
      logger.setLevel(ch.qos.logback.classic.Level.ERROR);
      return () -> logger.setLevel(previous);
    }
  }
}
