package dev.jooqoutbox.schema;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbRequeuedAtUpgradeTest extends RequeuedAtUpgradeContract {
  MariaDbRequeuedAtUpgradeTest() {
    super(TestDatabase.Kind.MARIADB);
  }
}
