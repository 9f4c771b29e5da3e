package dev.jooqoutbox.relay;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresRelayTracingTest extends RelayTracingContract {
  PostgresRelayTracingTest() {
    super(TestDatabase.Kind.POSTGRES);
  }
}
