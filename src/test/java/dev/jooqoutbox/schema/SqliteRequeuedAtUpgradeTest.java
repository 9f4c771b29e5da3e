package dev.jooqoutbox.schema;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteRequeuedAtUpgradeTest extends RequeuedAtUpgradeContract {
  SqliteRequeuedAtUpgradeTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
