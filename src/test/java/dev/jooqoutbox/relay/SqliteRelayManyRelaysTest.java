package dev.jooqoutbox.relay;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteRelayManyRelaysTest extends RelayManyRelaysContract {
  SqliteRelayManyRelaysTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
