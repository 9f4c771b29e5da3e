package dev.jooqoutbox.internal.repository;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresClaimBehindHeldTest extends ClaimBehindHeldContract {
  PostgresClaimBehindHeldTest() {
    super(TestDatabase.Kind.POSTGRES);
  }
}
