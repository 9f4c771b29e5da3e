package dev.jooqoutbox.relay;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteRelayDeliveryTest extends RelayDeliveryContract {
  SqliteRelayDeliveryTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
