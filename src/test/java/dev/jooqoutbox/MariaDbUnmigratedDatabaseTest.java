package dev.jooqoutbox;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbUnmigratedDatabaseTest extends UnmigratedDatabaseContract {
  MariaDbUnmigratedDatabaseTest() {
    super(TestDatabase.Kind.MARIADB);
  }
}
