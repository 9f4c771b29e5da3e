package dev.jooqoutbox.relay;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbRelayLaneTest extends RelayLaneContract {
  MariaDbRelayLaneTest() {
    super(TestDatabase.Kind.MARIADB);
  }
}
