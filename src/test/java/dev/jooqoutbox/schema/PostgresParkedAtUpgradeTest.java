package dev.jooqoutbox.schema;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresParkedAtUpgradeTest extends ParkedAtUpgradeContract {
  PostgresParkedAtUpgradeTest() {
    super(TestDatabase.Kind.POSTGRES);
  }
}
