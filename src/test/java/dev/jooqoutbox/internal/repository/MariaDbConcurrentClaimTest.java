package dev.jooqoutbox.internal.repository;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbConcurrentClaimTest extends ConcurrentClaimContract {
  MariaDbConcurrentClaimTest() {
    super(TestDatabase.Kind.MARIADB, false);
  }
}
