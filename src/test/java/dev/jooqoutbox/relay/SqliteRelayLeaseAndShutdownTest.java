package dev.jooqoutbox.relay;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteRelayLeaseAndShutdownTest extends RelayLeaseAndShutdownContract {
  SqliteRelayLeaseAndShutdownTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
