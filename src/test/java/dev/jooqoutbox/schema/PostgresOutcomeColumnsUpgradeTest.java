package dev.jooqoutbox.schema;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresOutcomeColumnsUpgradeTest extends OutcomeColumnsUpgradeContract {
  PostgresOutcomeColumnsUpgradeTest() {
    super(TestDatabase.Kind.POSTGRES);
  }
}
