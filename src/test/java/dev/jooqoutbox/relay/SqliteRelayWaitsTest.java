package dev.jooqoutbox.relay;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteRelayWaitsTest extends RelayWaitsContract {
  SqliteRelayWaitsTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
