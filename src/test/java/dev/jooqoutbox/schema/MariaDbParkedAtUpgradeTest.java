package dev.jooqoutbox.schema;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbParkedAtUpgradeTest extends ParkedAtUpgradeContract {
  MariaDbParkedAtUpgradeTest() {
    super(TestDatabase.Kind.MARIADB);
  }
}
