package dev.jooqoutbox.schema;

import dev.jooqoutbox.testing.TestDatabase;

/**
 * Postgres's keys compared exactly before 004 already: 004 applies nothing here (only the later
 * 005).
 */
class PostgresExactKeyUpgradeTest extends ExactKeyUpgradeContract {
  PostgresExactKeyUpgradeTest() {
    super(TestDatabase.Kind.POSTGRES);
  }
}
