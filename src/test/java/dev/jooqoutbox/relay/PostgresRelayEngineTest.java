package dev.jooqoutbox.relay;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresRelayEngineTest extends RelayEngineContract {
  PostgresRelayEngineTest() {
    super(TestDatabase.Kind.POSTGRES);
  }
}
