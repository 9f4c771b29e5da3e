package dev.jooqoutbox.internal.repository;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteClaimBehindHeldTest extends ClaimBehindHeldContract {
  SqliteClaimBehindHeldTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
