package dev.jooqoutbox.schema;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbMigrationLogTest extends MigrationLogContract {
  MariaDbMigrationLogTest() {
    super(TestDatabase.Kind.MARIADB);
  }
}
