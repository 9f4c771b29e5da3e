package dev.jooqoutbox.cli;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteCliOutcomesTest extends CliOutcomesContract {
  SqliteCliOutcomesTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
