package dev.jooqoutbox.internal.repository;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbClaimBehindHeldTest extends ClaimBehindHeldContract {
  MariaDbClaimBehindHeldTest() {
    super(TestDatabase.Kind.MARIADB);
  }
}
