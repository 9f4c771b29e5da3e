package dev.jooqoutbox;

import dev.jooqoutbox.internal.repository.DatabaseSchemas;
import dev.jooqoutbox.internal.schema.LiquibaseRunner;
import dev.jooqoutbox.internal.schema.SchemaChecks;
import java.io.Writer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import javax.sql.DataSource;
import liquibase.Contexts;
import liquibase.LabelExpression;
import liquibase.changelog.ChangeSet;
import liquibase.changelog.DatabaseChangeLog;
import liquibase.changelog.visitor.AbstractChangeExecListener;
import liquibase.database.Database;
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
  public static final String CHANGELOG = LiquibaseRunner.CHANGELOG;

  /**
   * Classpath location of the changelog of named outboxes (see {@link OutboxName}), run by {@link
   * #migrate(DataSource, OutboxName)} with the changelog parameter {@value #NAME_PARAMETER} set to
   * the name.
   */
  public static final String NAMED_CHANGELOG = LiquibaseRunner.NAMED_CHANGELOG;

  /** The changelog parameter {@link #NAMED_CHANGELOG} takes the outbox name from. */
  public static final String NAME_PARAMETER = LiquibaseRunner.NAME_PARAMETER;

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
    LiquibaseRunner.withLiquibase(
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
    LiquibaseRunner.withLiquibase(
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
    LiquibaseRunner.withLiquibase(
        dataSource, name, false, liquibase -> liquibase.rollback(changesets, null));
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
        SchemaChecks.requireSchema(connection, name);
        boolean catalogs = DatabaseSchemas.of(connection).schemaIsCatalog();
        catalog = catalogs ? name.schema() : connection.getCatalog();
        schema = catalogs ? null : name.schema();
      } else {
        // A null schema would make getTables list every schema: a missing one looked migrated.
        SchemaChecks.requireCurrentSchema(connection);
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
}
