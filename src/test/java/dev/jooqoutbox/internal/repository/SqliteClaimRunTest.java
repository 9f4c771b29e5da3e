package dev.jooqoutbox.internal.repository;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteClaimRunTest extends ClaimRunContract {
  SqliteClaimRunTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
