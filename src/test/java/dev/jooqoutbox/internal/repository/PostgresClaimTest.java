package dev.jooqoutbox.internal.repository;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresClaimTest extends ClaimContract {
  PostgresClaimTest() {
    super(TestDatabase.Kind.POSTGRES);
  }
}
