package dev.jooqoutbox.schema;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresMigrationLogTest extends MigrationLogContract {
  PostgresMigrationLogTest() {
    super(TestDatabase.Kind.POSTGRES);
  }
}
