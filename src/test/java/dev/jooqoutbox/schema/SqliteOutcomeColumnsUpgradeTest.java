package dev.jooqoutbox.schema;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteOutcomeColumnsUpgradeTest extends OutcomeColumnsUpgradeContract {
  SqliteOutcomeColumnsUpgradeTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
