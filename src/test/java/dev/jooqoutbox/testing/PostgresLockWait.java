package dev.jooqoutbox.testing;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import org.jooq.DSLContext;

/** PostgreSQL: a session is blocked behind the holder when {@code pg_blocking_pids} names it. */
final class PostgresLockWait extends CatalogLockWait {

  PostgresLockWait(DSLContext observer, Connection holder) throws SQLException {
    super(observer, holder);
  }

  @Override
  String holderIdQuery() {
    return "select pg_backend_pid()";
  }

  @Override
  String blockedCountQuery() {
    return "select count(*) from pg_stat_activity where ?::int = any(pg_blocking_pids(pid))";
  }

  @Override
  Duration pollInterval() {
    return Duration.ofMillis(5);
  }
}
