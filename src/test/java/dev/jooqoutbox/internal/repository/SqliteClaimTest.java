package dev.jooqoutbox.internal.repository;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteClaimTest extends ClaimContract {
  @Override
  StoreSubject open() {
    return new DatabaseStoreSubject(TestDatabase.Kind.SQLITE);
  }
}
