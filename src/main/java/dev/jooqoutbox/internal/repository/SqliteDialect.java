package dev.jooqoutbox.internal.repository;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;

import dev.jooqoutbox.OutboxException;
import dev.jooqoutbox.internal.naming.OutboxNaming;
import dev.jooqoutbox.schema.tables.OutboxMessageTable;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.jooq.DSLContext;
import org.jooq.Record;
import org.jooq.Record1;
import org.jooq.Select;
import org.jooq.SelectForUpdateStep;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.DefaultConnectionProvider;

/**
 * SQLite 3.35+: one writer at a time, so {@code BEGIN IMMEDIATE} takes the write lock up front (a
 * deferred transaction that read first could fail with SQLITE_BUSY on upgrade, which the busy
 * timeout cannot wait out), then {@code UPDATE ... RETURNING}. SQLite rejects {@code FOR UPDATE}
 * (jOOQ renders it unchanged), and needs none: nobody else writes while the lock is held.
 */
final class SqliteDialect implements OutboxDialect {

  /** One file is one database: no schemas ({@code ATTACH} aside, which the library never does). */
  @Override
  public boolean hasSchemas() {
    return false;
  }

  static final SqliteDialect INSTANCE = new SqliteDialect();

  private SqliteDialect() {}

  /**
   * Runs {@code work} under {@code BEGIN IMMEDIATE} on one connection and always ends that
   * transaction: a failing {@code COMMIT} (SQLITE_BUSY leaves the transaction open) rolls back, and
   * a failing {@code ROLLBACK} is added to the original error, never thrown instead of it.
   */
  @Override
  public <T> T claimTransaction(DSLContext dsl, Function<DSLContext, T> work) {
    return dsl.connectionResult(
        connection -> {
          if (!connection.getAutoCommit()) {
            throw new OutboxException("the SQLite claim must not run inside another transaction");
          }
          try (Statement statement = connection.createStatement()) {
            // Plain SQL: jOOQ has no way to say BEGIN IMMEDIATE.
            statement.execute("BEGIN IMMEDIATE");
            T result;
            try {
              // The caller's configuration on this connection: its listeners (tracing, logging,
              // metrics) see the claim's statements as on the other databases.
              result =
                  work.apply(
                      dsl.configuration().derive(new DefaultConnectionProvider(connection)).dsl());
            } catch (RuntimeException | Error e) {
              rollback(statement, e);
              throw e;
            }
            try {
              statement.execute("COMMIT");
            } catch (SQLException | RuntimeException e) {
              rollback(statement, e);
              throw e;
            }
            return result;
          }
        });
  }

  private static void rollback(Statement statement, Throwable cause) {
    try {
      statement.execute("ROLLBACK");
    } catch (SQLException | RuntimeException e) {
      cause.addSuppressed(e);
    }
  }

  @Override
  public List<Record> lease(
      DSLContext tx, SelectForUpdateStep<Record1<Long>> candidates, Lease lease) {
    return new ArrayList<>(
        ClaimQueries.takeLease(tx, OUTBOX_MESSAGE.SEQ.in(candidates), lease)
            .returning(MessageRows.FIELDS)
            .fetch());
  }

  @Override
  public Table<?> pendingInSeqOrder(OutboxMessageTable t) {
    // After ANALYZE SQLite walked the table by rowid from the floor instead (SqliteClaimPlanTest),
    // reading every row sent after it. Plain SQL: jOOQ cannot say INDEXED BY (its index hints are
    // MySQL's), and SQLite fails the statement rather than ignore this hint.
    return DSL.table(
        "{0} as {1} indexed by {2}",
        OUTBOX_MESSAGE,
        t.getUnqualifiedName(),
        OutboxNaming.outboxIndex("pending")); // ix_outbox_message_pending, or a named outbox's
  }

  @Override
  public Select<Record1<Long>> headSeqs(int aggregates) {
    return HeadQueries.recursiveHeads(aggregates, HeadQueries.HeadProbe.MIN_OF_AGGREGATE);
  }

  @Override
  public boolean isMissingTable(org.jooq.exception.DataAccessException e) {
    // The driver sets no SQLState, and the result code (SQLITE_ERROR) is every error's: the
    // message is what tells a missing table.
    String message = e.getMessage();
    return message != null && message.contains("no such table");
  }
}
