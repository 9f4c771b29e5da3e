package dev.jooqoutbox.internal.repository;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteDatabaseClaimTest extends DatabaseClaimContract {
  SqliteDatabaseClaimTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
