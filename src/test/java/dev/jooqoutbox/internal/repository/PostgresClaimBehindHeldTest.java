package dev.jooqoutbox.internal.repository;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresClaimBehindHeldTest extends ClaimBehindHeldContract {
  @Override
  StoreSubject open() {
    return new DatabaseStoreSubject(TestDatabase.Kind.POSTGRES);
  }
}
