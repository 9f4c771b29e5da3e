package dev.jooqoutbox.schema;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbPausedTopicUpgradeTest extends PausedTopicUpgradeContract {
  MariaDbPausedTopicUpgradeTest() {
    super(TestDatabase.Kind.MARIADB);
  }
}
