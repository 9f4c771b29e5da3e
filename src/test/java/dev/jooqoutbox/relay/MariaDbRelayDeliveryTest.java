package dev.jooqoutbox.relay;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbRelayDeliveryTest extends RelayDeliveryContract {
  MariaDbRelayDeliveryTest() {
    super(TestDatabase.Kind.MARIADB);
  }
}
