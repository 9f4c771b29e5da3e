package dev.jooqoutbox.relay;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresRelayWaitsTest extends RelayWaitsContract {
  PostgresRelayWaitsTest() {
    super(TestDatabase.Kind.POSTGRES);
  }
}
