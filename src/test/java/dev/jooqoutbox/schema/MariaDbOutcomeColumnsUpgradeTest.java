package dev.jooqoutbox.schema;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbOutcomeColumnsUpgradeTest extends OutcomeColumnsUpgradeContract {
  MariaDbOutcomeColumnsUpgradeTest() {
    super(TestDatabase.Kind.MARIADB);
  }
}
