package dev.jooqoutbox.relay;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteRelayHalfLeaseTest extends RelayHalfLeaseContract {
  SqliteRelayHalfLeaseTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
