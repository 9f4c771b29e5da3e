package dev.jooqoutbox.repository;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteClaimTest extends ClaimContract {
  SqliteClaimTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
