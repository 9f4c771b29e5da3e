package dev.jooqoutbox.relay;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteRelayTracingTest extends RelayTracingContract {
  SqliteRelayTracingTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
