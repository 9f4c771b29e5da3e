package dev.jooqoutbox.relay;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteRelayOutcomesTest extends RelayOutcomesContract {
  SqliteRelayOutcomesTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
