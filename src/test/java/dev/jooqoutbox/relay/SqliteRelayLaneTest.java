package dev.jooqoutbox.relay;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteRelayLaneTest extends RelayLaneContract {
  SqliteRelayLaneTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
