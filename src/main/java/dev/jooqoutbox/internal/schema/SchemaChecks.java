package dev.jooqoutbox.internal.schema;

import dev.jooqoutbox.OutboxException;
import dev.jooqoutbox.OutboxName;
import dev.jooqoutbox.internal.repository.DatabaseSchemas;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;

/**
 * Checks that the schema the outbox's tables belong in exists, before Liquibase or a metadata read
 * would fail on it with a message that does not name it. Not API.
 */
public final class SchemaChecks {

  private SchemaChecks() {}

  /**
   * The schema of an outbox with one ({@link OutboxName#inSchema}) must exist (it is never
   * created); SQLite has none.
   */
  public static void requireSchema(Connection connection, OutboxName name) throws SQLException {
    DatabaseMetaData meta = connection.getMetaData();
    DatabaseSchemas database = DatabaseSchemas.of(connection);
    if (!database.hasSchemas()) {
      throw new OutboxException(
          name + ": SQLite has no schemas; use an outbox without a schema (OutboxName.inSchema)");
    }
    try (ResultSet found = database.schemaIsCatalog() ? meta.getCatalogs() : meta.getSchemas()) {
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
  public static void requireCurrentSchema(Connection connection) throws SQLException {
    if (!DatabaseSchemas.of(connection).currentSchemaMayBeMissing()
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
   * The exception for an outbox whose tables are missing (or not up to date) where it writes or
   * relays: names {@code what} is missing, the outbox, and the ways to migrate it, as the CLI does.
   */
  public static OutboxException notMigrated(OutboxName name, String what, Throwable cause) {
    String changelog =
        name.isDefault()
            ? LiquibaseRunner.CHANGELOG + " (OutboxSchema.CHANGELOG)"
            : LiquibaseRunner.NAMED_CHANGELOG
                + " (OutboxSchema.NAMED_CHANGELOG) with the parameter "
                + LiquibaseRunner.NAME_PARAMETER;
    String call =
        name.isDefault()
            ? "OutboxSchema.migrate(dataSource)"
            : "OutboxSchema.migrate(dataSource, name)";
    return new OutboxException(
        "the tables of the "
            + name
            + " are missing or not up to date in this database ("
            + what
            + "): migrate them first, with "
            + call
            + " at start-up, or by including "
            + changelog
            + " from your own Liquibase changelog (from a shell: `outbox migrate --db <url>`)",
        cause);
  }
}
