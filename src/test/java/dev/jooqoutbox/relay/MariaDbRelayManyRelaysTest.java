package dev.jooqoutbox.relay;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbRelayManyRelaysTest extends RelayManyRelaysContract {
  MariaDbRelayManyRelaysTest() {
    super(TestDatabase.Kind.MARIADB);
  }
}
