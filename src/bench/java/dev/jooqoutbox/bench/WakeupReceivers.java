package dev.jooqoutbox.bench;

import dev.jooqoutbox.Outbox;
import dev.jooqoutbox.internal.wakeup.Wakeups;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.jooq.DSLContext;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * Receivers of both halves of the writers' wake-up, without a relay's claims: a {@link Wakeups}
 * registration that counts the in-process wake-ups, and a PostgreSQL connection that {@code
 * LISTEN}s and counts the notifications.
 */
final class WakeupReceivers implements AutoCloseable {

  private final LongAdder inProcess = new LongAdder();
  private final LongAdder notifications = new LongAdder();
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final Wakeups.Registration registration;
  private final Connection listening;
  private final Thread listener;

  private WakeupReceivers(BenchDatabase db, DSLContext dsl) throws SQLException {
    registration = Wakeups.register(dsl, inProcess::increment);
    listening = DriverManager.getConnection(db.url());
    try (Statement s = listening.createStatement()) {
      s.execute("LISTEN " + Outbox.NOTIFY_CHANNEL);
    }
    PGConnection pg = listening.unwrap(PGConnection.class);
    listener =
        new Thread(
            () -> {
              while (running.get()) {
                try {
                  PGNotification[] received = pg.getNotifications(200);
                  if (received != null) {
                    notifications.add(received.length);
                  }
                } catch (SQLException e) {
                  if (running.get()) {
                    System.out.println("  LISTEN connection failed: " + e.getMessage());
                  }
                  return;
                }
              }
            },
            "bench-listen");
    listener.setDaemon(true);
    listener.start();
  }

  static WakeupReceivers start(BenchDatabase db, DSLContext dsl) {
    try {
      return new WakeupReceivers(db, dsl);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot LISTEN: " + e.getMessage(), e);
    }
  }

  long inProcess() {
    return inProcess.sum();
  }

  long notifications() {
    return notifications.sum();
  }

  @Override
  public void close() {
    running.set(false);
    registration.close();
    try {
      listener.join(1000);
      listening.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (SQLException e) {
      // closing after the measurement
    }
  }
}
