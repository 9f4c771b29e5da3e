package dev.jooqoutbox.repository;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbSmokeTest extends SmokeContract {
  MariaDbSmokeTest() {
    super(TestDatabase.Kind.MARIADB);
  }
}
