package dev.jooqoutbox.internal.repository;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresDatabaseClaimTest extends DatabaseClaimContract {
  PostgresDatabaseClaimTest() {
    super(TestDatabase.Kind.POSTGRES);
  }
}
