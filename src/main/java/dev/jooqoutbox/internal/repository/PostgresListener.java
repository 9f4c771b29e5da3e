package dev.jooqoutbox.internal.repository;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.jooq.ConnectionProvider;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds one dedicated connection that {@code LISTEN}s on its outbox's channel and calls back when a
 * writer's transaction commits. When the connection fails it calls back (the relay claims once),
 * reconnects after the delay, and calls back again once it listens: a commit while it was down
 * waits at most for the reconnection, not for the next poll. Loaded only on PostgreSQL, so the
 * PostgreSQL driver stays optional.
 */
final class PostgresListener implements WakeupListener {

  private static final Logger log = LoggerFactory.getLogger(PostgresListener.class);

  private final ConnectionProvider connections;
  private final String channel;
  private final Runnable onNotification;
  private final Duration reconnectDelay;
  private volatile boolean running = true;
  private volatile Connection connection;
  private boolean listenedBefore;

  PostgresListener(
      ConnectionProvider connections,
      String channel,
      Runnable onNotification,
      Duration reconnectDelay) {
    this.connections = connections;
    this.channel = channel;
    this.onNotification = onNotification;
    this.reconnectDelay = reconnectDelay;
  }

  @Override
  public void run() {
    while (running) {
      try {
        listen();
      } catch (SQLException | RuntimeException e) {
        if (running) {
          log.warn("outbox LISTEN connection failed; reconnecting in {}", reconnectDelay, e);
          onNotification.run(); // a notification may have been lost: let the relay poll now
          sleep(reconnectDelay);
        }
      } finally {
        releaseConnection();
      }
    }
  }

  private void listen() throws SQLException {
    connection = connections.acquire();
    connection.setAutoCommit(true);
    PGConnection pg = connection.unwrap(PGConnection.class);
    try (Statement statement = connection.createStatement()) {
      // Plain SQL: jOOQ has no LISTEN statement. The channel is our constant, or one made of a
      // validated OutboxName (OutboxNaming.notifyChannel), never other input.
      statement.execute("LISTEN " + channel);
    }
    if (listenedBefore) {
      // Commits while the connection was down were not heard: let the relay claim once now.
      onNotification.run();
    }
    listenedBefore = true;
    while (running) {
      PGNotification[] notifications = pg.getNotifications(500);
      if (notifications != null && notifications.length > 0) {
        onNotification.run();
      }
    }
  }

  @Override
  public void stop() {
    running = false;
  }

  private void releaseConnection() {
    Connection c = connection;
    connection = null;
    if (c != null) {
      try (Statement statement = c.createStatement()) {
        statement.execute("UNLISTEN *"); // the pool may hand this connection to someone else
      } catch (SQLException e) {
        log.debug("could not UNLISTEN before releasing the connection", e);
      }
      try {
        connections.release(c);
      } catch (RuntimeException e) {
        log.debug("could not release the LISTEN connection", e);
      }
    }
  }

  private static void sleep(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
