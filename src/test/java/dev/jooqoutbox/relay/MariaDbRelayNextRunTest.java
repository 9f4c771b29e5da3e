package dev.jooqoutbox.relay;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbRelayNextRunTest extends RelayNextRunContract {
  MariaDbRelayNextRunTest() {
    super(TestDatabase.Kind.MARIADB);
  }
}
