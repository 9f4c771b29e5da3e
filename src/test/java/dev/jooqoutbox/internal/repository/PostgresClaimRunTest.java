package dev.jooqoutbox.internal.repository;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresClaimRunTest extends ClaimRunContract {
  PostgresClaimRunTest() {
    super(TestDatabase.Kind.POSTGRES);
  }
}
