package dev.jooqoutbox.schema;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteParkedAtUpgradeTest extends ParkedAtUpgradeContract {
  SqliteParkedAtUpgradeTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
