package dev.jooqoutbox.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A held xmin horizon on PostgreSQL: a second session opens a {@code REPEATABLE READ} transaction,
 * takes its snapshot with one statement and leaves it open, as a long report, {@code pg_dump} or a
 * session idle in transaction does. Until {@link #close()} no row version that snapshot could see
 * is removed, nor any index entry of one marked dead, so the versions of delivered messages stay in
 * the outbox's indexes for every later claim to walk past.
 */
final class HeldHorizon implements AutoCloseable {

  private final BenchDatabase db;
  private final Connection connection;
  private final int pid;

  private HeldHorizon(BenchDatabase db, Connection connection, int pid) {
    this.db = db;
    this.connection = connection;
    this.pid = pid;
  }

  /**
   * Opens the transaction and checks that the server counts its snapshot in the horizon; when
   * {@code writes}, it also writes a row of another table, as a session idle in a transaction that
   * wrote does, and so has a transaction id.
   */
  static HeldHorizon open(BenchDatabase db, boolean writes) {
    Connection c = null;
    try {
      c = DriverManager.getConnection(db.url());
      c.setAutoCommit(false);
      c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
      int pid;
      // The first statement of a REPEATABLE READ transaction takes the snapshot it keeps.
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
        rs.next();
        pid = rs.getInt(1);
      }
      if (writes) {
        db.execute("CREATE TABLE IF NOT EXISTS bench_elsewhere (n int)");
        try (Statement s = c.createStatement()) {
          s.executeUpdate("INSERT INTO bench_elsewhere VALUES (1)");
        }
      }
      HeldHorizon held = new HeldHorizon(db, c, pid);
      // Seen from another session, as the server's horizon computation sees it.
      if (db.queryLong(
              "SELECT COUNT(*) FROM pg_stat_activity WHERE backend_xmin IS NOT NULL AND pid = "
                  + pid)
          != 1) {
        held.close();
        throw new IllegalStateException("the held transaction shows no backend_xmin");
      }
      return held;
    } catch (SQLException e) {
      closeQuietly(c);
      throw new IllegalStateException("cannot hold the horizon: " + e.getMessage(), e);
    }
  }

  /** How many transaction ids the horizon is behind now: {@code age(backend_xmin)}. */
  long age() {
    return db.queryLong("SELECT age(backend_xmin) FROM pg_stat_activity WHERE pid = " + pid);
  }

  /**
   * Other sessions of this database holding a snapshot right now, to tell whether a run "without"
   * the held horizon really ran without one (a test suite or a psql session elsewhere can hold one
   * for minutes, and would make both runs of a pair alike).
   */
  static long otherHolders(BenchDatabase db) {
    return db.queryLong(
        "SELECT COUNT(*) FROM pg_stat_activity WHERE backend_xmin IS NOT NULL"
            + " AND datname = current_database() AND pid <> pg_backend_pid()");
  }

  /** Ends the transaction: the horizon moves on. */
  @Override
  public void close() {
    try {
      connection.rollback();
    } catch (SQLException e) {
      // closing the connection ends the transaction as well
    } finally {
      closeQuietly(connection);
    }
  }

  private static void closeQuietly(Connection c) {
    if (c == null) {
      return;
    }
    try {
      c.close();
    } catch (SQLException e) {
      // nothing to hold any more either way
    }
  }
}
