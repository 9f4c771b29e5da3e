package dev.jooqoutbox.internal.wakeup;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbWakeupTest extends WakeupContract {
  MariaDbWakeupTest() {
    super(TestDatabase.Kind.MARIADB);
  }
}
