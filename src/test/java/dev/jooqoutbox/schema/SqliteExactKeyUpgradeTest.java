package dev.jooqoutbox.schema;

import dev.jooqoutbox.testing.TestDatabase;

/** Sqlite's keys compared exactly before 004 already: the upgrade applies nothing here. */
class SqliteExactKeyUpgradeTest extends ExactKeyUpgradeContract {
  SqliteExactKeyUpgradeTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
