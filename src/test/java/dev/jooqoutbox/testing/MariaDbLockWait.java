package dev.jooqoutbox.testing;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import org.jooq.DSLContext;

/**
 * MariaDB: a session is blocked behind the holder when InnoDB lists a lock wait whose blocking
 * transaction runs on the holder's connection.
 */
final class MariaDbLockWait extends CatalogLockWait {

  MariaDbLockWait(DSLContext observer, Connection holder) throws SQLException {
    super(observer, holder);
  }

  @Override
  String holderIdQuery() {
    return "select connection_id()";
  }

  @Override
  String blockedCountQuery() {
    return "select count(distinct w.requesting_trx_id) from information_schema.innodb_lock_waits w"
        + " join information_schema.innodb_trx b on b.trx_id = w.blocking_trx_id"
        + " where b.trx_mysql_thread_id = ?";
  }

  @Override
  Duration pollInterval() {
    // InnoDB refreshes these tables from its transactions only when they were not read for
    // 100 ms: polled more often, they never change.
    return Duration.ofMillis(150);
  }
}
