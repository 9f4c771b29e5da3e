package dev.jooqoutbox.internal.schema;

import java.util.logging.Level;
import liquibase.logging.core.AbstractLogService;
import liquibase.logging.core.AbstractLogger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Liquibase's log on SLF4J, under Liquibase's class names. Warnings and errors keep their level;
 * Liquibase reports its progress (which changelog it reads, each changeset, the update summary) at
 * INFO, which an application did not ask for: that goes to DEBUG.
 */
final class Slf4jLogService extends AbstractLogService {
  private final boolean printOnly;

  Slf4jLogService(boolean printOnly) {
    this.printOnly = printOnly;
  }

  @Override
  public int getPriority() {
    return PRIORITY_SPECIALIZED;
  }

  @Override
  public liquibase.logging.Logger getLog(Class clazz) {
    Logger target = LoggerFactory.getLogger(clazz);
    // Printing the SQL for a fresh database, Liquibase "releases" a lock table it only printed
    // and never created, and warns that it failed to: nothing is wrong, so that is DEBUG too.
    int warning =
        printOnly && clazz.getName().startsWith("liquibase.lockservice.")
            ? Level.SEVERE.intValue()
            : Level.WARNING.intValue();
    return new AbstractLogger() {
      @Override
      public void log(Level level, String message, Throwable e) {
        int value = level.intValue();
        if (value == Level.OFF.intValue()) {
          return; // a record switched off (Liquibase logs "analytics disabled" at OFF)
        } else if (value >= Level.SEVERE.intValue()) {
          target.error(message, e);
        } else if (value >= warning) {
          target.warn(message, e);
        } else if (value >= Level.CONFIG.intValue()) {
          target.debug(message, e);
        } else {
          target.trace(message, e);
        }
      }
    };
  }
}
