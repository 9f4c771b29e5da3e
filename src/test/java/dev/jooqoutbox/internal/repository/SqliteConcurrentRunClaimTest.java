package dev.jooqoutbox.internal.repository;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteConcurrentRunClaimTest extends ConcurrentClaimContract {
  SqliteConcurrentRunClaimTest() {
    super(TestDatabase.Kind.SQLITE, true, 5, 20);
  }
}
