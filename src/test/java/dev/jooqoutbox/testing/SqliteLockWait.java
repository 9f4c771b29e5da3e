package dev.jooqoutbox.testing;

import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.jooq.DSLContext;
import org.sqlite.BusyHandler;
import org.sqlite.SQLiteConnection;

/**
 * SQLite: the database has one writer and no view of who waits, so the waiting connection gets a
 * busy handler for the duration of its statement. SQLite calls it while another connection holds
 * the write lock; it reports the wait and keeps retrying, as the connection's busy timeout would.
 * Each waiter counts once, however often SQLite calls it.
 */
final class SqliteLockWait implements LockWait {

  private static final long GIVE_UP_NANOS = TimeUnit.SECONDS.toNanos(30);

  private final AtomicInteger blocked = new AtomicInteger();

  @Override
  public Waiter waiter(DSLContext tx) {
    SQLiteConnection connection = tx.connectionResult(c -> c.unwrap(SQLiteConnection.class));
    int busyTimeout = connection.getBusyTimeout();
    long start = System.nanoTime();
    AtomicBoolean counted = new AtomicBoolean();
    try {
      BusyHandler.setHandler(
          connection,
          new BusyHandler() {
            @Override
            protected int callback(int previousCalls) {
              if (counted.compareAndSet(false, true)) {
                blocked.incrementAndGet();
              }
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
  public void awaitBlocked(int sessions, Duration timeout) {
    LockWait.poll(
        (sessions == 1 ? "connection" : sessions + " connections") + " waited for the write lock",
        () -> blocked.get() >= sessions,
        Duration.ofMillis(2),
        timeout);
  }
}
