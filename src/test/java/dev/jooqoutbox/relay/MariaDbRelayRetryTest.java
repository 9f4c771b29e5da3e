package dev.jooqoutbox.relay;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbRelayRetryTest extends RelayRetryContract {
  MariaDbRelayRetryTest() {
    super(TestDatabase.Kind.MARIADB);
  }
}
