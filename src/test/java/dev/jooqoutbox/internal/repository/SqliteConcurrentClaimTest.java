package dev.jooqoutbox.internal.repository;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteConcurrentClaimTest extends ConcurrentClaimContract {
  SqliteConcurrentClaimTest() {
    super(TestDatabase.Kind.SQLITE, true);
  }
}
