package dev.jooqoutbox.schema;

import dev.jooqoutbox.testing.TestDatabase;

class SqlitePausedTopicUpgradeTest extends PausedTopicUpgradeContract {
  SqlitePausedTopicUpgradeTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
