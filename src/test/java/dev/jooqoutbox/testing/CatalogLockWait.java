package dev.jooqoutbox.testing;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.jooq.DSLContext;

/**
 * A server that lists lock waits in its catalog: the holder is known by its session id, and a query
 * on another connection tells whether anyone waits for it.
 */
abstract class CatalogLockWait implements LockWait {

  private final DSLContext observer;
  private final long holderId;

  CatalogLockWait(DSLContext observer, Connection holder) throws SQLException {
    this.observer = observer;
    try (Statement statement = holder.createStatement();
        ResultSet id = statement.executeQuery(holderIdQuery())) {
      id.next();
      this.holderId = id.getLong(1);
    }
  }

  /** Selects the session id of the connection it runs on. */
  abstract String holderIdQuery();

  /** Selects how many sessions wait for a lock of the session whose id is bound. */
  abstract String blockedCountQuery();

  /** How often to ask. */
  abstract Duration pollInterval();

  @Override
  public Waiter waiter(DSLContext tx) {
    return () -> {};
  }

  @Override
  public void awaitBlocked(int sessions, Duration timeout) {
    LockWait.poll(
        (sessions == 1 ? "session was" : sessions + " sessions were")
            + " blocked behind session "
            + holderId,
        () -> blockedCount() >= sessions,
        pollInterval(),
        timeout);
  }

  private int blockedCount() {
    return observer.resultQuery(blockedCountQuery(), holderId).fetchSingle(0, int.class);
  }
}
