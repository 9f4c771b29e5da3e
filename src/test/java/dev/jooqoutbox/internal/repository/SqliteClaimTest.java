package dev.jooqoutbox.internal.repository;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteClaimTest extends ClaimContract {
  SqliteClaimTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
