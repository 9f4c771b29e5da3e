package dev.jooqoutbox;

import java.io.Writer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;
import liquibase.Contexts;
import liquibase.LabelExpression;
import liquibase.Liquibase;
import liquibase.Scope;
import liquibase.UpdateSummaryOutputEnum;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.exception.LiquibaseException;
import liquibase.resource.ClassLoaderResourceAccessor;
import liquibase.ui.LoggerUIService;
import org.jooq.DSLContext;

/**
 * Runs the jOOQ-outbox Liquibase changelog that ships in the jar.
 *
 * <p>Applications that already run Liquibase include {@link #CHANGELOG} from their own master
 * changelog instead; this class is for applications, tests and the CLI that want the outbox tables
 * without a Liquibase setup of their own. An update is idempotent (applied changesets are skipped)
 * and serialized across processes by Liquibase's lock table.
 */
public final class OutboxSchema {

  /** Classpath location of the master changelog, to {@code include} from your own. */
  public static final String CHANGELOG = "db/changelog/jooq-outbox.xml";

  private OutboxSchema() {}

  /**
   * Applies every changeset not yet applied, on a connection from {@code dataSource}. Safe to run
   * from several processes at once: they apply each changeset once between them.
   */
  public static void migrate(DataSource dataSource) {
    try {
      update(dataSource);
    } catch (OutboxException first) {
      // Liquibase creates its DATABASECHANGELOG table before it takes its lock (liquibase#2315),
      // so of two processes migrating a fresh schema at once one can fail creating it. A second
      // run finds the table and waits for the lock like any other; a real error fails again.
      try {
        update(dataSource);
      } catch (OutboxException second) {
        second.addSuppressed(first);
        throw second;
      }
    }
  }

  private static void update(DataSource dataSource) {
    withLiquibase(dataSource, liquibase -> liquibase.update(new Contexts(), new LabelExpression()));
  }

  /** Writes the SQL that {@link #migrate} would run, without running it. */
  public static void printMigration(DataSource dataSource, Writer out) {
    withLiquibase(
        dataSource, liquibase -> liquibase.update(new Contexts(), new LabelExpression(), out));
  }

  /** Rolls back the last {@code changesets} applied changesets of this changelog. */
  public static void rollback(DataSource dataSource, int changesets) {
    withLiquibase(dataSource, liquibase -> liquibase.rollback(changesets, null));
  }

  /**
   * Tells whether the outbox and inbox tables exist in the connection's current schema (PostgreSQL)
   * or database (MariaDB, SQLite), so a tool can say "run migrate first" instead of failing on a
   * missing table. Tables of the same name in other schemas of the server do not count.
   */
  public static boolean isMigrated(DSLContext dsl) {
    return dsl.connectionResult(OutboxSchema::isMigrated);
  }

  /** As {@link #isMigrated(DSLContext)}, on a plain connection. */
  public static boolean isMigrated(Connection connection) {
    // Plain JDBC metadata instead of jOOQ's meta(): that one lists every schema of the catalog, so
    // an empty PostgreSQL schema looked migrated when any other schema held the tables.
    Set<String> names = new HashSet<>();
    try (ResultSet tables =
        connection
            .getMetaData()
            .getTables(
                connection.getCatalog(), connection.getSchema(), "%", new String[] {"TABLE"})) {
      while (tables.next()) {
        names.add(tables.getString("TABLE_NAME").toLowerCase(Locale.ROOT));
      }
    } catch (SQLException e) {
      throw new OutboxException("cannot read the table names: " + e.getMessage(), e);
    }
    return names.contains("outbox_message") && names.contains("inbox_message");
  }

  @FunctionalInterface
  private interface LiquibaseWork {
    void run(Liquibase liquibase) throws LiquibaseException;
  }

  private static void withLiquibase(DataSource dataSource, LiquibaseWork work) {
    try (Connection connection = dataSource.getConnection()) {
      Database database =
          DatabaseFactory.getInstance()
              .findCorrectDatabaseImplementation(new JdbcConnection(connection));
      var accessor = new ClassLoaderResourceAccessor(OutboxSchema.class.getClassLoader());
      // Liquibase's default UI service and its update summary print to System.out; a library must
      // not write to the application's console, so both go to Liquibase's log instead. Nor may
      // it send usage analytics from the application's process: they are off here.
      Scope.child(
          Map.of(
              Scope.Attr.resourceAccessor.name(),
              accessor,
              Scope.Attr.ui.name(),
              new LoggerUIService(),
              "liquibase.analytics.enabled",
              false),
          () -> {
            @SuppressWarnings("deprecation") // the command API needs the same three arguments
            Liquibase liquibase = new Liquibase(CHANGELOG, accessor, database);
            liquibase.setShowSummaryOutput(UpdateSummaryOutputEnum.LOG);
            work.run(liquibase);
          });
    } catch (SQLException e) {
      throw new OutboxException("cannot open a connection for the outbox migration", e);
    } catch (Exception e) {
      throw new OutboxException("outbox migration failed: " + e.getMessage(), e);
    }
  }
}
