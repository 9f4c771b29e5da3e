package dev.jooqoutbox.internal.repository;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresConcurrentClaimTest extends ConcurrentClaimContract {
  PostgresConcurrentClaimTest() {
    super(TestDatabase.Kind.POSTGRES, false);
  }
}
