package dev.jooqoutbox;

import java.io.Writer;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import liquibase.Contexts;
import liquibase.LabelExpression;
import liquibase.Liquibase;
import liquibase.Scope;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.exception.LiquibaseException;
import liquibase.resource.ClassLoaderResourceAccessor;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;

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

  /** Applies every changeset not yet applied, on a connection from {@code dataSource}. */
  public static void migrate(DataSource dataSource) {
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
   * Tells whether the outbox and inbox tables exist, so a tool can say "run migrate first" instead
   * of failing on a missing table.
   */
  public static boolean isMigrated(DSLContext dsl) {
    var names = dsl.meta().getTables().stream().map(t -> t.getName().toLowerCase()).toList();
    return names.contains("outbox_message") && names.contains("inbox_message");
  }

  /** As {@link #isMigrated(DSLContext)}, on a plain connection. */
  public static boolean isMigrated(Connection connection) {
    return isMigrated(DSL.using(connection));
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
      Scope.child(
          Scope.Attr.resourceAccessor.name(),
          accessor,
          () -> {
            @SuppressWarnings("deprecation") // the command API needs the same three arguments
            Liquibase liquibase = new Liquibase(CHANGELOG, accessor, database);
            work.run(liquibase);
          });
    } catch (SQLException e) {
      throw new OutboxException("cannot open a connection for the outbox migration", e);
    } catch (Exception e) {
      throw new OutboxException("outbox migration failed: " + e.getMessage(), e);
    }
  }
}
