package dev.jooqoutbox.relay;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresRelayLeaseAndShutdownTest extends RelayLeaseAndShutdownContract {
  PostgresRelayLeaseAndShutdownTest() {
    super(TestDatabase.Kind.POSTGRES);
  }
}
