package dev.jooqoutbox.relay;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteRelayNextRunTest extends RelayNextRunContract {
  SqliteRelayNextRunTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
