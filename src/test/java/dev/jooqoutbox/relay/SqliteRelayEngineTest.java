package dev.jooqoutbox.relay;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteRelayEngineTest extends RelayEngineContract {
  SqliteRelayEngineTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
