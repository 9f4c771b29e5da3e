package dev.jooqoutbox.relay;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresRelayDeliveryTest extends RelayDeliveryContract {
  PostgresRelayDeliveryTest() {
    super(TestDatabase.Kind.POSTGRES);
  }
}
