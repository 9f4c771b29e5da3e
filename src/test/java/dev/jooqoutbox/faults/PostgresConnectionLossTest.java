package dev.jooqoutbox.faults;

import dev.jooqoutbox.testing.TestDatabase;
import java.util.UUID;

/**
 * {@link ConnectionLossContract} on PostgreSQL: the relays' backends carry an application name of
 * their own and are ended with {@code pg_terminate_backend}; the LISTEN connection is cut too.
 */
class PostgresConnectionLossTest extends ConnectionLossContract {

  private final String application = "fault-relay-" + UUID.randomUUID();

  PostgresConnectionLossTest() {
    super(TestDatabase.Kind.POSTGRES);
  }

  @Override
  String relayUrl() {
    return db.url() + "&ApplicationName=" + application;
  }

  @Override
  int endRelaySessions() {
    Object terminated =
        db.dsl()
            .fetchValue(
                "select count(*) filter (where pg_terminate_backend(pid)) from pg_stat_activity"
                    + " where application_name = ? and pid <> pg_backend_pid()",
                application);
    return ((Number) terminated).intValue();
  }
}
