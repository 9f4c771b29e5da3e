package dev.jooqoutbox.relay;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbRelayOutcomesTest extends RelayOutcomesContract {
  MariaDbRelayOutcomesTest() {
    super(TestDatabase.Kind.MARIADB);
  }
}
