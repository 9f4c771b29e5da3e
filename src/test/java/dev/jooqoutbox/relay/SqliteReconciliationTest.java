package dev.jooqoutbox.relay;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteReconciliationTest extends ReconciliationContract {
  SqliteReconciliationTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
