package dev.jooqoutbox.schema;

import dev.jooqoutbox.testing.TestDatabase;
import java.util.List;

/**
 * Sqlite's keys compared exactly before 004 already: 004 applies nothing here (only the later 005).
 */
class SqliteExactKeyUpgradeTest extends ExactKeyUpgradeContract {
  SqliteExactKeyUpgradeTest() {
    super(TestDatabase.Kind.SQLITE);
  }

  @Override
  List<String> changesetsAfterTheRelease() {
    return List.of("005-outcome-unknown-sqlite");
  }
}
