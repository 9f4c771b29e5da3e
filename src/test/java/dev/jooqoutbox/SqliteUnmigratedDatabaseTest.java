package dev.jooqoutbox;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteUnmigratedDatabaseTest extends UnmigratedDatabaseContract {
  SqliteUnmigratedDatabaseTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
