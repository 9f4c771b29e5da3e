package dev.jooqoutbox.internal.repository;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * What the schema checks and the migration ({@code internal.schema}, {@code OutboxSchema}) must
 * know of a connection's database, answered by its dialect strategy, so that they never ask which
 * database it is.
 *
 * <p>Not API.
 */
public final class DatabaseSchemas {

  private final OutboxDialect dialect;

  private DatabaseSchemas(OutboxDialect dialect) {
    this.dialect = dialect;
  }

  /** The answers for the database of {@code connection} (its product name picks the strategy). */
  public static DatabaseSchemas of(Connection connection) throws SQLException {
    return new DatabaseSchemas(OutboxDialect.of(connection));
  }

  /** Whether tables can live in a schema other than the current one (not on SQLite). */
  public boolean hasSchemas() {
    return dialect.hasSchemas();
  }

  /**
   * Whether a schema is a JDBC catalog (MariaDB: {@code getCatalogs}, {@code setCatalog}) rather
   * than a JDBC schema (PostgreSQL: {@code getSchemas}, {@code setSchema}).
   */
  public boolean schemaIsCatalog() {
    return dialect.schemaIsCatalog();
  }

  /** Whether a connection can have no current schema at all (PostgreSQL's search_path). */
  public boolean currentSchemaMayBeMissing() {
    return dialect.currentSchemaMayBeMissing();
  }
}
