package dev.jooqoutbox.internal.repository;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbClaimRunTest extends ClaimRunContract {
  MariaDbClaimRunTest() {
    super(TestDatabase.Kind.MARIADB);
  }
}
