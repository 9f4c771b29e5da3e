package dev.jooqoutbox.schema;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteMigrationLogTest extends MigrationLogContract {
  SqliteMigrationLogTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
