package dev.jooqoutbox.relay;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresRelayHalfLeaseTest extends RelayHalfLeaseContract {
  PostgresRelayHalfLeaseTest() {
    super(TestDatabase.Kind.POSTGRES);
  }
}
