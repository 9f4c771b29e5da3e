package dev.jooqoutbox.relay;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbRelayHalfLeaseTest extends RelayHalfLeaseContract {
  MariaDbRelayHalfLeaseTest() {
    super(TestDatabase.Kind.MARIADB);
  }
}
