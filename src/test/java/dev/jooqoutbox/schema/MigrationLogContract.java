package dev.jooqoutbox.schema;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.jooqoutbox.OutboxSchema;
import dev.jooqoutbox.testing.TestChangelogs;
import dev.jooqoutbox.testing.TestDatabase;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * What {@link OutboxSchema#migrate} logs in an application that logs at INFO: one line of its own
 * (the changesets it applied, or that the schema is up to date) and nothing of Liquibase's, neither
 * through SLF4J nor through {@code java.util.logging}, where Liquibase logs a dozen INFO records
 * per run by default. {@link OutboxSchema#printMigration} logs nothing.
 */
abstract class MigrationLogContract {

  private final TestDatabase.Kind kind;
  private TestDatabase db;
  private final ListAppender<ILoggingEvent> slf4j = new ListAppender<>();
  private final List<LogRecord> jul = new ArrayList<>();
  private final Handler julHandler =
      new Handler() {
        @Override
        public void publish(LogRecord record) {
          synchronized (jul) {
            jul.add(record);
          }
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };
  private Level rootLevel;
  private java.util.logging.Level liquibaseJulLevel;

  MigrationLogContract(TestDatabase.Kind kind) {
    this.kind = kind;
  }

  @BeforeEach
  void captureLogs() {
    db = TestDatabase.empty(kind);
    Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    rootLevel = root.getLevel();
    root.setLevel(Level.INFO); // as an application logs
    slf4j.start();
    root.addAppender(slf4j);
    // java.util.logging as a JVM starts: INFO. (The CLI turns Liquibase's logger down; a test of
    // the CLI may have run in this JVM before.)
    java.util.logging.Logger liquibase = java.util.logging.Logger.getLogger("liquibase");
    liquibaseJulLevel = liquibase.getLevel();
    liquibase.setLevel(java.util.logging.Level.INFO);
    java.util.logging.Logger.getLogger("").addHandler(julHandler);
  }

  @AfterEach
  void releaseLogs() {
    java.util.logging.Logger.getLogger("").removeHandler(julHandler);
    java.util.logging.Logger.getLogger("liquibase").setLevel(liquibaseJulLevel);
    Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    root.detachAppender(slf4j);
    root.setLevel(rootLevel);
    slf4j.stop();
    db.close();
  }

  @Test
  void migrationLogsTheChangesetsItAppliedInOneLine() {
    OutboxSchema.migrate(db.dataSource());

    List<String> applied = appliedChangesets();
    assertThat(applied).isNotEmpty();
    assertThat(infoAndAbove())
        .singleElement()
        .satisfies(
            line ->
                assertThat(line)
                    .startsWith(
                        "INFO dev.jooqoutbox.OutboxSchema: outbox schema: applied "
                            + applied.size()
                            + " changesets: ")
                    .contains(applied));
    assertThat(liquibaseOnJul()).isEmpty();
  }

  @Test
  void migrationOfAnUpToDateSchemaLogsOneLine() {
    OutboxSchema.migrate(db.dataSource());
    clear();

    OutboxSchema.migrate(db.dataSource());

    assertThat(infoAndAbove())
        .containsExactly("INFO dev.jooqoutbox.OutboxSchema: outbox schema is up to date");
    assertThat(liquibaseOnJul()).isEmpty();
  }

  @Test
  void printingTheMigrationOfAFreshDatabaseLogsNothing() {
    StringWriter sql = new StringWriter();
    OutboxSchema.printMigration(db.dataSource(), sql);

    assertThat(sql.toString()).containsIgnoringCase("CREATE TABLE outbox_message");
    // Not even Liquibase's "Failed to release change log lock": it only printed that table.
    assertThat(infoAndAbove()).isEmpty();
    assertThat(liquibaseOnJul()).isEmpty();
  }

  /** Events of this library and of Liquibase at INFO and above, as "LEVEL logger: message". */
  private List<String> infoAndAbove() {
    synchronized (slf4j) {
      return slf4j.list.stream()
          .filter(e -> e.getLevel().isGreaterOrEqual(Level.INFO))
          .filter(
              e ->
                  e.getLoggerName().startsWith("dev.jooqoutbox")
                      || e.getLoggerName().startsWith("liquibase"))
          .map(e -> e.getLevel() + " " + e.getLoggerName() + ": " + e.getFormattedMessage())
          .toList();
    }
  }

  /** What Liquibase sent to java.util.logging at INFO or above. */
  private List<String> liquibaseOnJul() {
    synchronized (jul) {
      return jul.stream()
          .filter(r -> r.getLevel().intValue() >= java.util.logging.Level.INFO.intValue())
          .filter(r -> r.getLoggerName() != null && r.getLoggerName().startsWith("liquibase"))
          .map(r -> r.getLevel() + " " + r.getLoggerName() + ": " + r.getMessage())
          .toList();
    }
  }

  private void clear() {
    synchronized (slf4j) {
      slf4j.list.clear();
    }
    synchronized (jul) {
      jul.clear();
    }
  }

  private List<String> appliedChangesets() {
    return TestChangelogs.applied(db.dsl());
  }
}
