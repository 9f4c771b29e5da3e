package dev.jooqoutbox.testing;

import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jooq.DSLContext;
import org.sqlite.BusyHandler;
import org.sqlite.SQLiteConnection;

/**
 * SQLite: the database has one writer and no view of who waits, so the waiting connection gets a
 * busy handler for the duration of its statement. SQLite calls it while another connection holds
 * the write lock; it reports the wait and keeps retrying, as the connection's busy timeout would.
 */
final class SqliteLockWait implements LockWait {

  private static final long GIVE_UP_NANOS = TimeUnit.SECONDS.toNanos(30);

  private final CountDownLatch blocked = new CountDownLatch(1);

  @Override
  public Waiter waiter(DSLContext tx) {
    SQLiteConnection connection = tx.connectionResult(c -> c.unwrap(SQLiteConnection.class));
    int busyTimeout = connection.getBusyTimeout();
    long start = System.nanoTime();
    try {
      BusyHandler.setHandler(
          connection,
          new BusyHandler() {
            @Override
            protected int callback(int previousCalls) {
              blocked.countDown();
              if (System.nanoTime() - start > GIVE_UP_NANOS) {
                return 0; // SQLITE_BUSY, as the busy timeout would
              }
              try {
                Thread.sleep(2);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return 0;
              }
              return 1;
            }
          });
    } catch (SQLException e) {
      throw new IllegalStateException("cannot install the busy handler", e);
    }
    return () -> {
      try {
        // Back to the pool as it came: the busy timeout replaces the handler.
        BusyHandler.clearHandler(connection);
        connection.setBusyTimeout(busyTimeout);
      } catch (SQLException e) {
        throw new IllegalStateException("cannot restore the busy timeout", e);
      }
    };
  }

  @Override
  public void awaitBlocked(Duration timeout) {
    try {
      if (!blocked.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new AssertionError(
            "no connection waited for the SQLite write lock within " + timeout);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while waiting for a blocked connection", e);
    }
  }
}
