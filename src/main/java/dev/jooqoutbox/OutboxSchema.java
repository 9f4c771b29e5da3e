package dev.jooqoutbox;

import java.io.Writer;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.logging.Level;
import javax.sql.DataSource;
import liquibase.Contexts;
import liquibase.LabelExpression;
import liquibase.Liquibase;
import liquibase.Scope;
import liquibase.UpdateSummaryOutputEnum;
import liquibase.changelog.ChangeSet;
import liquibase.changelog.DatabaseChangeLog;
import liquibase.changelog.visitor.AbstractChangeExecListener;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.exception.LiquibaseException;
import liquibase.logging.core.AbstractLogService;
import liquibase.logging.core.AbstractLogger;
import liquibase.resource.ClassLoaderResourceAccessor;
import liquibase.ui.LoggerUIService;
import org.jooq.DSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the jOOQ-outbox Liquibase changelog that ships in the jar.
 *
 * <p>Applications that already run Liquibase include {@link #CHANGELOG} from their own master
 * changelog instead; this class is for applications, tests and the CLI that want the outbox tables
 * without a Liquibase setup of their own. An update is idempotent (applied changesets are skipped)
 * and serialized across processes by Liquibase's lock table.
 *
 * <p>Logging: {@link #migrate} logs one line at INFO through SLF4J (logger {@code
 * dev.jooqoutbox.OutboxSchema}): the changesets it applied, or that the schema is up to date.
 * Liquibase's own log goes to SLF4J too (loggers {@code liquibase.*}), its warnings and errors as
 * such and its progress reports at DEBUG, never to {@code java.util.logging} or the console.
 */
public final class OutboxSchema {

  /** Classpath location of the master changelog, to {@code include} from your own. */
  public static final String CHANGELOG = "db/changelog/jooq-outbox.xml";

  /**
   * Classpath location of the changelog of named outboxes (see {@link OutboxName}), run by {@link
   * #migrate(DataSource, OutboxName)} with the changelog parameter {@value #NAME_PARAMETER} set to
   * the name.
   */
  public static final String NAMED_CHANGELOG = "db/changelog/jooq-outbox-named.xml";

  /** The changelog parameter {@link #NAMED_CHANGELOG} takes the outbox name from. */
  public static final String NAME_PARAMETER = "jooq-outbox.name";

  private static final Logger log = LoggerFactory.getLogger(OutboxSchema.class);

  private OutboxSchema() {}

  /**
   * Applies every changeset not yet applied, on a connection from {@code dataSource}. Safe to run
   * from several processes at once: they apply each changeset once between them.
   *
   * @throws OutboxException when the migration fails; on PostgreSQL also when the connection's
   *     current schema does not exist (a {@code currentSchema} naming a missing schema)
   */
  public static void migrate(DataSource dataSource) {
    migrate(dataSource, OutboxName.DEFAULT);
  }

  /**
   * As {@link #migrate(DataSource)}, for the outbox {@code name}: the default one from {@link
   * #CHANGELOG}, a named one from {@link #NAMED_CHANGELOG}. A named outbox's changesets are its own
   * (their file path in DATABASECHANGELOG holds the name): migrating it neither needs nor touches
   * the tables or changesets of the default outbox or of other named ones.
   */
  public static void migrate(DataSource dataSource, OutboxName name) {
    Objects.requireNonNull(name, "name");
    try {
      update(dataSource, name);
    } catch (OutboxException first) {
      // Liquibase creates its DATABASECHANGELOG table before it takes its lock (liquibase#2315),
      // so of two processes migrating a fresh schema at once one can fail creating it. A second
      // run finds the table and waits for the lock like any other; a real error fails again.
      try {
        update(dataSource, name);
      } catch (OutboxException second) {
        second.addSuppressed(first);
        throw second;
      }
    }
  }

  private static void update(DataSource dataSource, OutboxName name) {
    List<String> applied = new ArrayList<>();
    withLiquibase(
        dataSource,
        name,
        false,
        liquibase -> {
          liquibase.setChangeExecListener(
              new AbstractChangeExecListener() {
                @Override
                public void ran(
                    ChangeSet changeSet,
                    DatabaseChangeLog changeLog,
                    Database database,
                    ChangeSet.ExecType execType) {
                  applied.add(changeSet.getId());
                }
              });
          liquibase.update(new Contexts(), new LabelExpression());
        });
    if (applied.isEmpty()) {
      log.info("{} is up to date", subject(name));
    } else {
      log.info("{}: applied {} changesets: {}", subject(name), applied.size(), applied);
    }
  }

  /** Writes the SQL that {@link #migrate} would run, without running it. */
  public static void printMigration(DataSource dataSource, Writer out) {
    printMigration(dataSource, OutboxName.DEFAULT, out);
  }

  /** Writes the SQL that {@link #migrate(DataSource, OutboxName)} would run, without running it. */
  public static void printMigration(DataSource dataSource, OutboxName name, Writer out) {
    Objects.requireNonNull(name, "name");
    withLiquibase(
        dataSource,
        name,
        true,
        liquibase -> liquibase.update(new Contexts(), new LabelExpression(), out));
  }

  /** Rolls back the last {@code changesets} applied changesets of this changelog. */
  public static void rollback(DataSource dataSource, int changesets) {
    rollback(dataSource, OutboxName.DEFAULT, changesets);
  }

  /** Rolls back the last {@code changesets} applied changesets of the outbox {@code name}. */
  public static void rollback(DataSource dataSource, OutboxName name, int changesets) {
    Objects.requireNonNull(name, "name");
    withLiquibase(dataSource, name, false, liquibase -> liquibase.rollback(changesets, null));
    log.info("{}: rolled back the last {} changesets", subject(name), changesets);
  }

  /** What the log lines name: "outbox schema" as before named outboxes, or the named one's. */
  private static String subject(OutboxName name) {
    return name.isDefault() && !name.hasSchema() ? "outbox schema" : "schema of " + name;
  }

  /**
   * Tells whether the outbox and inbox tables exist in the connection's current schema (PostgreSQL)
   * or database (MariaDB, SQLite), so a tool can say "run migrate first" instead of failing on a
   * missing table. Tables of the same name in other schemas of the server do not count.
   *
   * @throws OutboxException on PostgreSQL when the connection's current schema does not exist
   */
  public static boolean isMigrated(DSLContext dsl) {
    return isMigrated(dsl, OutboxName.DEFAULT);
  }

  /** As {@link #isMigrated(DSLContext)}, for the tables of the outbox {@code name}. */
  public static boolean isMigrated(DSLContext dsl, OutboxName name) {
    Objects.requireNonNull(name, "name");
    return dsl.connectionResult(connection -> isMigrated(connection, name));
  }

  /** As {@link #isMigrated(DSLContext)}, on a plain connection. */
  public static boolean isMigrated(Connection connection) {
    return isMigrated(connection, OutboxName.DEFAULT);
  }

  /** As {@link #isMigrated(DSLContext, OutboxName)}, on a plain connection. */
  public static boolean isMigrated(Connection connection, OutboxName name) {
    // Plain JDBC metadata instead of jOOQ's meta(): that one lists every schema of the catalog, so
    // an empty PostgreSQL schema looked migrated when any other schema held the tables.
    Set<String> names = new HashSet<>();
    String catalog;
    String schema;
    try {
      if (name.hasSchema()) {
        requireSchema(connection, name);
        boolean postgres = "PostgreSQL".equals(connection.getMetaData().getDatabaseProductName());
        catalog = postgres ? connection.getCatalog() : name.schema();
        schema = postgres ? name.schema() : null;
      } else {
        // A null schema would make getTables list every schema: a missing one looked migrated.
        requireCurrentSchema(connection);
        catalog = connection.getCatalog();
        schema = connection.getSchema();
      }
    } catch (SQLException e) {
      throw new OutboxException("cannot read the current schema: " + e.getMessage(), e);
    }
    try (ResultSet tables =
        connection.getMetaData().getTables(catalog, schema, "%", new String[] {"TABLE"})) {
      while (tables.next()) {
        names.add(tables.getString("TABLE_NAME").toLowerCase(Locale.ROOT));
      }
    } catch (SQLException e) {
      throw new OutboxException("cannot read the table names: " + e.getMessage(), e);
    }
    return names.contains(name.outboxTable()) && names.contains(name.inboxTable());
  }

  @FunctionalInterface
  private interface LiquibaseWork {
    void run(Liquibase liquibase) throws LiquibaseException;
  }

  /**
   * Runs {@code work} on a Liquibase of this changelog, on a connection of {@code dataSource};
   * {@code printOnly} when it only writes SQL.
   */
  private static void withLiquibase(
      DataSource dataSource, OutboxName name, boolean printOnly, LiquibaseWork work) {
    try (Connection connection = dataSource.getConnection()) {
      if (name.hasSchema()) {
        requireSchema(connection, name);
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
        requireCurrentSchema(connection);
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
    if ("PostgreSQL".equals(connection.getMetaData().getDatabaseProductName())) {
      if (schema != null) {
        connection.setSchema(schema);
      }
    } else if (catalog != null) {
      connection.setCatalog(catalog);
    }
  }

  private static void runLiquibase(
      Connection connection, OutboxName name, boolean printOnly, LiquibaseWork work) {
    try {
      var accessor = new ClassLoaderResourceAccessor(OutboxSchema.class.getClassLoader());
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

  /**
   * The schema of an outbox with one ({@link OutboxName#inSchema}) must exist (it is never
   * created); SQLite has none.
   */
  private static void requireSchema(Connection connection, OutboxName name) throws SQLException {
    DatabaseMetaData meta = connection.getMetaData();
    if ("SQLite".equals(meta.getDatabaseProductName())) {
      throw new OutboxException(
          name + ": SQLite has no schemas; use an outbox without a schema (OutboxName.inSchema)");
    }
    boolean catalogs = !"PostgreSQL".equals(meta.getDatabaseProductName());
    try (ResultSet found = catalogs ? meta.getCatalogs() : meta.getSchemas()) {
      while (found.next()) {
        if (name.schema().equalsIgnoreCase(found.getString(1))) {
          return;
        }
      }
    }
    throw new OutboxException(
        "schema \"" + name.schema() + "\" does not exist: create it, or name an existing schema");
  }

  /**
   * PostgreSQL only: the tables belong in the first schema of the {@code search_path} that exists,
   * and with none ({@code currentSchema} in the URL naming a missing schema) PostgreSQL reports
   * "relation does not exist" or "no schema has been selected to create in". This names the schema
   * instead. Other databases have no such state: their current database is checked at connect.
   */
  private static void requireCurrentSchema(Connection connection) throws SQLException {
    if (!"PostgreSQL".equals(connection.getMetaData().getDatabaseProductName())
        || connection.getSchema() != null) {
      return;
    }
    String searchPath;
    try (Statement statement = connection.createStatement();
        ResultSet result = statement.executeQuery("SHOW search_path")) {
      result.next();
      searchPath = result.getString(1);
    }
    List<String> schemas =
        Arrays.stream(searchPath.split(","))
            .map(String::trim)
            .filter(schema -> !schema.isEmpty())
            .map(schema -> '"' + schema.replace("\"", "") + '"')
            .toList();
    throw new OutboxException(
        (schemas.size() == 1
                ? "schema " + schemas.get(0) + " does not exist"
                : "none of the schemas " + String.join(", ", schemas) + " exists")
            + " (the connection's search_path is \""
            + searchPath
            + "\", set by currentSchema in a PostgreSQL JDBC URL): create it, or name an"
            + " existing schema");
  }

  /**
   * Liquibase's log on SLF4J, under Liquibase's class names. Warnings and errors keep their level;
   * Liquibase reports its progress (which changelog it reads, each changeset, the update summary)
   * at INFO, which an application did not ask for: that goes to DEBUG.
   */
  private static final class Slf4jLogService extends AbstractLogService {
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
}
