package dev.jooqoutbox.internal.repository;

import static org.jooq.impl.DSL.row;
import static org.jooq.impl.DSL.select;

import dev.jooqoutbox.OutboxException;
import dev.jooqoutbox.schema.tables.OutboxMessageTable;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Function;
import org.jooq.ConnectionProvider;
import org.jooq.DSLContext;
import org.jooq.InsertSetMoreStep;
import org.jooq.OrderField;
import org.jooq.Record;
import org.jooq.Record1;
import org.jooq.ResultQuery;
import org.jooq.SQLDialect;
import org.jooq.Select;
import org.jooq.SelectConditionStep;
import org.jooq.SelectForUpdateStep;
import org.jooq.Table;

/**
 * Everything in which the supported databases differ for the outbox, one implementation per
 * database, picked once from the jOOQ dialect or, for the schema checks and the migration, from the
 * connection (as db-scheduler's {@code JdbcCustomization}). The repository's classes ask this
 * interface and never the dialect itself ({@link DatabaseSchemas} answers for {@code
 * internal.schema}); no other class tests which database it runs on.
 */
interface OutboxDialect {

  /**
   * The implementation for the database of {@code connection}, from its product name: for the
   * schema checks and the migration, which get a connection and no jOOQ dialect. A database other
   * than PostgreSQL and SQLite gets MariaDB's (what the checks assumed of any other database before
   * they asked this interface); the library supports no other.
   */
  static OutboxDialect of(Connection connection) throws SQLException {
    String product = connection.getMetaData().getDatabaseProductName();
    return switch (product == null ? "" : product) {
      case "PostgreSQL" -> PostgresDialect.INSTANCE;
      case "SQLite" -> SqliteDialect.INSTANCE;
      default -> MariaDbDialect.INSTANCE;
    };
  }

  /** The implementation for {@code dialect}. */
  static OutboxDialect of(SQLDialect dialect) {
    return switch (dialect.family()) {
      case POSTGRES -> PostgresDialect.INSTANCE;
      case MARIADB, MYSQL -> MariaDbDialect.INSTANCE;
      case SQLITE -> SqliteDialect.INSTANCE;
      default ->
          throw new OutboxException(
              "jooq-outbox supports PostgreSQL, MariaDB/MySQL and SQLite, not " + dialect);
    };
  }

  // ---------------------------------------------------------------- claim

  /**
   * Runs the statements of one claim ({@code work} gets the context to run them on) as the database
   * needs them to run: in autocommit (PostgreSQL, each lease is one atomic statement), in a READ
   * COMMITTED transaction (MariaDB), or under the write lock (SQLite).
   */
  <T> T claimTransaction(DSLContext dsl, Function<DSLContext, T> work);

  /**
   * Leases the rows {@code candidates} selects, skipping rows another claim holds locked, and
   * returns them with {@link MessageRows#FIELDS}, in any order.
   */
  List<Record> lease(DSLContext tx, SelectForUpdateStep<Record1<Long>> candidates, Lease lease);

  /**
   * The seq of the oldest pending message of up to {@code aggregates} aggregates, with one or two
   * index probes per aggregate (never a walk of all pending rows).
   */
  Select<Record1<Long>> headSeqs(int aggregates);

  /** How the claim's window probes an aggregate's oldest pending seq. */
  default HeadQueries.HeadProbe headProbe() {
    return HeadQueries.HeadProbe.FIRST_OF_AGGREGATE;
  }

  /**
   * Where the claim reads pending rows in seq order from (its window, the floor's refresh, the
   * oldest-pending gauge): {@code t} itself where {@link #pendingSeqOrder} leaves the planner one
   * index to read, or {@code t} with a hint where it may pick an index that makes the read walk
   * sent rows.
   */
  default Table<?> pendingInSeqOrder(OutboxMessageTable t) {
    return t;
  }

  /**
   * The order of {@link #pendingInSeqOrder}'s reads: seq order, said so that only an index of the
   * pending rows in seq order gives it where the planner could read the primary key instead.
   */
  default List<OrderField<?>> pendingSeqOrder(OutboxMessageTable t) {
    return List.of(t.SEQ);
  }

  // ---------------------------------------------------------------- writes

  /**
   * Whether {@code e} says a table the statement names does not exist: the outbox is not migrated
   * (or not up to date) in this database.
   */
  boolean isMissingTable(org.jooq.exception.DataAccessException e);

  /**
   * Whether writers append messages to the event log (changeset 009, {@code internal.eventlog})
   * rather than inserting rows into outbox_message, which then holds only the messages that need a
   * state of their own. PostgreSQL only (docs/decisions/0001-postgresql-event-log.md).
   */
  default boolean appendsEvents() {
    return false;
  }

  /**
   * Runs {@code insert} unless a row with the key of {@code row} exists, without failing the
   * caller's transaction on a duplicate and without raising a database error for it (drivers log
   * errors; an expected duplicate is not one). A concurrent insert of the same key that has not
   * committed yet is waited for. Any other error (a real integrity violation) still throws.
   *
   * @return true when inserted, false when a row with this key exists
   */
  default boolean insertIfAbsent(InsertSetMoreStep<?> insert, UniqueRow<?> row) {
    // ON CONFLICT DO NOTHING: no statement fails, so the caller's transaction stays usable.
    return insert.onConflict(row.key()).doNothing().execute() == 1;
  }

  /** Reads the row a duplicate insert collided with, so that the read sees its latest commit. */
  default <R extends Record> ResultQuery<R> readCommitted(SelectConditionStep<R> select) {
    return select; // a new snapshot per statement (READ COMMITTED), or a single writer
  }

  // ---------------------------------------------------------------- wake-up

  /**
   * Whatever makes relays wake when the writer's transaction {@code tx} commits, sent inside it
   * (PostgreSQL: {@code NOTIFY}, delivered at commit only); nothing where the database cannot. The
   * writer's fallback when its transaction has no after-commit hook.
   */
  default void notifyRelays(DSLContext tx, String topic) {}

  /** Whether tables can live in a schema other than the current one (OutboxName.inSchema). */
  default boolean hasSchemas() {
    return true;
  }

  /**
   * Whether what the outbox calls a schema is a JDBC catalog (MariaDB: a database, listed by {@code
   * getCatalogs}, entered with {@code setCatalog}) rather than a JDBC schema (PostgreSQL: listed by
   * {@code getSchemas}, entered with {@code setSchema}).
   */
  default boolean schemaIsCatalog() {
    return true;
  }

  /**
   * Whether a connection can have no current schema at all (PostgreSQL: no schema of the {@code
   * search_path} exists), which the schema checks then name; elsewhere the current database is
   * checked at connect.
   */
  default boolean currentSchemaMayBeMissing() {
    return false;
  }

  /** Whether {@link #notifyOtherProcesses} reaches relays in other processes. */
  default boolean notifiesOtherProcesses() {
    return false;
  }

  /**
   * Tells listening relays, in any process, that writers have committed: one notification from a
   * connection of {@code dsl}'s own, outside any writer's transaction. Nothing where the database
   * has no notifications.
   */
  default void notifyOtherProcesses(DSLContext dsl) {}

  /**
   * A listener that calls {@code onNotification} when a writer's transaction commits a write to the
   * outbox of notification {@code channel}, on a connection of its own; null where the database has
   * no notifications (relays then poll).
   */
  default WakeupListener wakeupListener(
      ConnectionProvider connections,
      String channel,
      Runnable onNotification,
      Duration reconnectDelay) {
    return null;
  }

  /** A claim token and the end of its lease. */
  record Lease(String token, Instant until) {}
}
