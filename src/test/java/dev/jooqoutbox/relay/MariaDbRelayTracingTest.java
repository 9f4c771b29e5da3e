package dev.jooqoutbox.relay;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbRelayTracingTest extends RelayTracingContract {
  MariaDbRelayTracingTest() {
    super(TestDatabase.Kind.MARIADB);
  }
}
