package dev.jooqoutbox.schema;

import dev.jooqoutbox.testing.TestDatabase;

/**
 * Sqlite's keys compared exactly before 004 already: 004 applies nothing here (only the later 005).
 */
class SqliteExactKeyUpgradeTest extends ExactKeyUpgradeContract {
  SqliteExactKeyUpgradeTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
