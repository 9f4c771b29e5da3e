package dev.jooqoutbox.testing;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * Collects what anything logs at WARN or above while it is open, through logback's root logger: the
 * JDBC drivers and the pool included. The drivers' loggers are set to inherit the root's WARN
 * meanwhile, so a test that quieted one of them earlier in this JVM does not hide its warnings.
 */
public final class WarningLog implements AutoCloseable {

  private static final String[] DATABASE_LOGGERS = {
    "org.mariadb", "org.postgresql", "org.sqlite", "com.zaxxer.hikari", "org.jooq"
  };

  private final Logger root = (Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);
  private final Level rootLevel = root.getLevel();
  private final Level[] levels = new Level[DATABASE_LOGGERS.length];
  private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

  private WarningLog() {
    for (int i = 0; i < DATABASE_LOGGERS.length; i++) {
      Logger logger = (Logger) LoggerFactory.getLogger(DATABASE_LOGGERS[i]);
      levels[i] = logger.getLevel();
      logger.setLevel(null);
    }
    root.setLevel(Level.WARN);
    appender.start();
    root.addAppender(appender);
  }

  /** Starts collecting. */
  public static WarningLog capture() {
    return new WarningLog();
  }

  /** What was logged at WARN or above so far: logger, level and message. */
  public List<String> warnings() {
    synchronized (appender) { // AppenderBase appends under the appender's own lock
      return appender.list.stream()
          .filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
          .map(e -> e.getLoggerName() + " " + e.getLevel() + " " + e.getFormattedMessage())
          .toList();
    }
  }

  @Override
  public void close() {
    root.detachAppender(appender);
    appender.stop();
    root.setLevel(rootLevel);
    for (int i = 0; i < DATABASE_LOGGERS.length; i++) {
      ((Logger) LoggerFactory.getLogger(DATABASE_LOGGERS[i])).setLevel(levels[i]);
    }
  }
}
