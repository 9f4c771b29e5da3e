package dev.jooqoutbox.faults;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbKilledAtUnknownSettleTest extends KilledAtUnknownSettleContract {
  MariaDbKilledAtUnknownSettleTest() {
    super(TestDatabase.Kind.MARIADB);
  }
}
