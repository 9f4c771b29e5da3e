package dev.jooqoutbox.internal.repository;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresClaimTest extends ClaimContract {
  @Override
  StoreSubject open() {
    return new DatabaseStoreSubject(TestDatabase.Kind.POSTGRES);
  }
}
