package dev.jooqoutbox.testing;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.jooq.DSLContext;

/**
 * Tells when another session is blocked behind a lock that one session (the holder) holds, so a
 * concurrency test commits or rolls back the holder only once the other session really waits for
 * it; without that, a test can pass without the two ever overlapping.
 *
 * <p>One small class per dialect: PostgreSQL and MariaDB show lock waits in their catalogs; SQLite
 * has no such view, so there the waiting session reports its wait through a busy handler, which
 * {@link #waiter} installs on its connection.
 */
public interface LockWait {

  /** Watches for sessions blocked behind {@code holder}, a connection of {@code db}. */
  static LockWait behind(TestDatabase db, Connection holder) {
    try {
      return switch (db.kind()) {
        case POSTGRES -> new PostgresLockWait(db.dsl(), holder);
        case MARIADB -> new MariaDbLockWait(db.dsl(), holder);
        case SQLITE -> new SqliteLockWait();
      };
    } catch (SQLException e) {
      throw new IllegalStateException("cannot identify the lock holder's session", e);
    }
  }

  /**
   * Prepares the waiting session {@code tx}; call it in that session right before the statement
   * that may block, and close it after. Needed on SQLite only; elsewhere it does nothing.
   */
  Waiter waiter(DSLContext tx);

  /** Returns once a session is blocked behind the holder; fails after {@code timeout}. */
  default void awaitBlocked(Duration timeout) {
    awaitBlocked(1, timeout);
  }

  /**
   * Returns once at least {@code sessions} sessions are blocked behind the holder at the same time;
   * fails after {@code timeout}.
   */
  void awaitBlocked(int sessions, Duration timeout);

  /**
   * Runs {@code work} in a new transaction on {@code dsl}, as the session that may block: with
   * {@link #waiter} set up around it.
   */
  default <T> T inWaitingTransaction(DSLContext dsl, Function<DSLContext, T> work) {
    return dsl.transactionResult(
        tx -> {
          try (Waiter waiter = waiter(tx.dsl())) {
            return work.apply(tx.dsl());
          }
        });
  }

  /** Undoes what {@link #waiter} set up on the waiting session. */
  interface Waiter extends AutoCloseable {
    @Override
    void close();
  }

  /** Polls {@code blocked} every {@code interval} until it is true, or fails. */
  static void poll(String what, BooleanSupplier blocked, Duration interval, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!blocked.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no " + what + " within " + timeout);
      }
      try {
        Thread.sleep(interval.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted while waiting for a blocked session", e);
      }
    }
  }
}
