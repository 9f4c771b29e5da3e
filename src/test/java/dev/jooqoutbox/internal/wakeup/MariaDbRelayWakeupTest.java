package dev.jooqoutbox.internal.wakeup;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbRelayWakeupTest extends RelayWakeupContract {
  MariaDbRelayWakeupTest() {
    super(TestDatabase.Kind.MARIADB);
  }
}
