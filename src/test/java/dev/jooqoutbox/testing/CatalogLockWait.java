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

  /** Selects a row when some session waits for a lock of the session whose id is bound. */
  abstract String blockedQuery();

  /** How often to ask. */
  abstract Duration pollInterval();

  @Override
  public Waiter waiter(DSLContext tx) {
    return () -> {};
  }

  @Override
  public void awaitBlocked(Duration timeout) {
    LockWait.poll(
        "session " + holderId,
        () -> observer.fetchOptional(observer.resultQuery(blockedQuery(), holderId)).isPresent(),
        pollInterval(),
        timeout);
  }
}
