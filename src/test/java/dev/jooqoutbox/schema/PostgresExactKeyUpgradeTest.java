package dev.jooqoutbox.schema;

import dev.jooqoutbox.testing.TestDatabase;

/** Postgres's keys compared exactly before 004 already: the upgrade applies nothing here. */
class PostgresExactKeyUpgradeTest extends ExactKeyUpgradeContract {
  PostgresExactKeyUpgradeTest() {
    super(TestDatabase.Kind.POSTGRES);
  }
}
