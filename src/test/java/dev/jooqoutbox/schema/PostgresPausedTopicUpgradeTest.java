package dev.jooqoutbox.schema;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresPausedTopicUpgradeTest extends PausedTopicUpgradeContract {
  PostgresPausedTopicUpgradeTest() {
    super(TestDatabase.Kind.POSTGRES);
  }
}
