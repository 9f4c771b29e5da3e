package dev.jooqoutbox.relay;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbReconciliationTest extends ReconciliationContract {
  MariaDbReconciliationTest() {
    super(TestDatabase.Kind.MARIADB);
  }
}
