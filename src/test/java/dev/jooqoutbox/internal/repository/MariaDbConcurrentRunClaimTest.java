package dev.jooqoutbox.internal.repository;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbConcurrentRunClaimTest extends ConcurrentClaimContract {
  MariaDbConcurrentRunClaimTest() {
    super(TestDatabase.Kind.MARIADB, false, 5, 20);
  }
}
