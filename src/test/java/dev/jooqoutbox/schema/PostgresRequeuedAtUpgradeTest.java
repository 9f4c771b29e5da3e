package dev.jooqoutbox.schema;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresRequeuedAtUpgradeTest extends RequeuedAtUpgradeContract {
  PostgresRequeuedAtUpgradeTest() {
    super(TestDatabase.Kind.POSTGRES);
  }
}
