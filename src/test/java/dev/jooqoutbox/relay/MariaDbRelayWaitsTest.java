package dev.jooqoutbox.relay;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbRelayWaitsTest extends RelayWaitsContract {
  MariaDbRelayWaitsTest() {
    super(TestDatabase.Kind.MARIADB);
  }
}
