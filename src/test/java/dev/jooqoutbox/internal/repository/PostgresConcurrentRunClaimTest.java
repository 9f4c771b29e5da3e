package dev.jooqoutbox.internal.repository;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresConcurrentRunClaimTest extends ConcurrentClaimContract {
  PostgresConcurrentRunClaimTest() {
    super(TestDatabase.Kind.POSTGRES, false, 5, 20);
  }
}
