package dev.jooqoutbox.relay;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresReconciliationTest extends ReconciliationContract {
  PostgresReconciliationTest() {
    super(TestDatabase.Kind.POSTGRES);
  }
}
