package dev.jooqoutbox.internal.schema;

import dev.jooqoutbox.OutboxException;
import dev.jooqoutbox.OutboxName;
import dev.jooqoutbox.internal.repository.DatabaseSchemas;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import javax.sql.DataSource;
import liquibase.Liquibase;
import liquibase.Scope;
import liquibase.UpdateSummaryOutputEnum;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.exception.LiquibaseException;
import liquibase.resource.ClassLoaderResourceAccessor;
import liquibase.ui.LoggerUIService;

/**
 * Runs work on a Liquibase of the outbox's changelog, for {@link dev.jooqoutbox.OutboxSchema}: on
 * one connection, in the outbox's schema when it has one, with Liquibase's console output, log and
 * analytics kept away from the application. Not API.
 */
public final class LiquibaseRunner {

  /** Classpath location of the default outbox's changelog. */
  public static final String CHANGELOG = "db/changelog/jooq-outbox.xml";

  /** Classpath location of the changelog of named outboxes. */
  public static final String NAMED_CHANGELOG = "db/changelog/jooq-outbox-named.xml";

  /** The changelog parameter {@link #NAMED_CHANGELOG} takes the outbox name from. */
  public static final String NAME_PARAMETER = "jooq-outbox.name";

  private LiquibaseRunner() {}

  /** What to do with the Liquibase: update, print, roll back. */
  @FunctionalInterface
  public interface Work {
    void run(Liquibase liquibase) throws LiquibaseException;
  }

  /**
   * Runs {@code work} on a Liquibase of this changelog, on a connection of {@code dataSource};
   * {@code printOnly} when it only writes SQL.
   */
  public static void withLiquibase(
      DataSource dataSource, OutboxName name, boolean printOnly, Work work) {
    try (Connection connection = dataSource.getConnection()) {
      if (name.hasSchema()) {
        SchemaChecks.requireSchema(connection, name);
        // The changesets' SQL names its tables unqualified: they go to the session's schema
        // (PostgreSQL search_path, MariaDB current database), so that is the outbox's one for the
        // migration and the connection's own again after it.
        String schema = connection.getSchema();
        String catalog = connection.getCatalog();
        boolean autoCommit = connection.getAutoCommit();
        try {
          useSchema(connection, name.schema(), name.schema());
          runLiquibase(connection, name, printOnly, work);
        } finally {
          // Liquibase leaves auto-commit off: a SET search_path now would be rolled back when
          // the pool takes the connection back, leaving it in the outbox's schema.
          if (!connection.getAutoCommit()) {
            connection.rollback();
            connection.setAutoCommit(autoCommit);
          }
          useSchema(connection, schema, catalog);
        }
      } else {
        SchemaChecks.requireCurrentSchema(connection);
        runLiquibase(connection, name, printOnly, work);
      }
    } catch (OutboxException e) {
      throw e;
    } catch (SQLException e) {
      throw new OutboxException("cannot open a connection for the outbox migration", e);
    }
  }

  private static void useSchema(Connection connection, String schema, String catalog)
      throws SQLException {
    if (!DatabaseSchemas.of(connection).schemaIsCatalog()) {
      if (schema != null) {
        connection.setSchema(schema);
      }
    } else if (catalog != null) {
      connection.setCatalog(catalog);
    }
  }

  private static void runLiquibase(
      Connection connection, OutboxName name, boolean printOnly, Work work) {
    LiquibaseVersion.require();
    try {
      var accessor = new ClassLoaderResourceAccessor(LiquibaseRunner.class.getClassLoader());
      // Liquibase's default UI service and its update summary print to System.out, and its log
      // goes to java.util.logging at INFO (a dozen records per start, also when nothing is to do):
      // a library must not write to the application's console or log, so both go to SLF4J, its
      // chatter at DEBUG (see Slf4jLogService). Set in this scope only, so an application's own
      // Liquibase runs stay as it configured them. Nor may the library send usage analytics
      // from the application's process: they are off here.
      Scope.child(
          Map.of(
              Scope.Attr.resourceAccessor.name(),
              accessor,
              Scope.Attr.ui.name(),
              new LoggerUIService(),
              Scope.Attr.logService.name(),
              new Slf4jLogService(printOnly),
              "liquibase.analytics.enabled",
              false),
          () -> {
            Database database =
                DatabaseFactory.getInstance()
                    .findCorrectDatabaseImplementation(new JdbcConnection(connection));
            @SuppressWarnings("deprecation") // the command API needs the same three arguments
            Liquibase liquibase =
                new Liquibase(name.isDefault() ? CHANGELOG : NAMED_CHANGELOG, accessor, database);
            if (!name.isDefault()) {
              // A validated name (OutboxName.of): it becomes part of identifiers, never SQL text.
              liquibase.setChangeLogParameter(NAME_PARAMETER, name.name());
            }
            if (name.hasSchema()) {
              // A validated schema name (OutboxName.inSchema): Liquibase creates the tables and
              // its own DATABASECHANGELOG and lock table there, so each schema migrates on its own.
              database.setDefaultSchemaName(name.schema());
              database.setLiquibaseSchemaName(name.schema());
              if (!database.supportsSchemas()) { // MariaDB: a schema is a database (catalog)
                database.setDefaultCatalogName(name.schema());
                database.setLiquibaseCatalogName(name.schema());
              }
            }
            liquibase.setShowSummaryOutput(UpdateSummaryOutputEnum.LOG);
            work.run(liquibase);
          });
    } catch (OutboxException e) {
      throw e;
    } catch (Exception e) {
      throw new OutboxException("outbox migration failed: " + e.getMessage(), e);
    }
  }
}
