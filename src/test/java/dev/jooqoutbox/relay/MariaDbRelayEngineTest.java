package dev.jooqoutbox.relay;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbRelayEngineTest extends RelayEngineContract {
  MariaDbRelayEngineTest() {
    super(TestDatabase.Kind.MARIADB);
  }
}
