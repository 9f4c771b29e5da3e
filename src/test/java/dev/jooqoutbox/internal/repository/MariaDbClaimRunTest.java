package dev.jooqoutbox.internal.repository;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbClaimRunTest extends ClaimRunContract {
  @Override
  StoreSubject open() {
    return new DatabaseStoreSubject(TestDatabase.Kind.MARIADB);
  }
}
