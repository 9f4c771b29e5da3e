package dev.jooqoutbox.internal.repository;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbDatabaseClaimTest extends DatabaseClaimContract {
  MariaDbDatabaseClaimTest() {
    super(TestDatabase.Kind.MARIADB);
  }
}
