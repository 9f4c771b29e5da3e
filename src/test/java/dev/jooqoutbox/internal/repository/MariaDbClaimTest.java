package dev.jooqoutbox.internal.repository;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbClaimTest extends ClaimContract {
  MariaDbClaimTest() {
    super(TestDatabase.Kind.MARIADB);
  }
}
