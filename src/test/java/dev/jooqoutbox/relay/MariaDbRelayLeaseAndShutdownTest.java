package dev.jooqoutbox.relay;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbRelayLeaseAndShutdownTest extends RelayLeaseAndShutdownContract {
  MariaDbRelayLeaseAndShutdownTest() {
    super(TestDatabase.Kind.MARIADB);
  }
}
