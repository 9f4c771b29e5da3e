package dev.jooqoutbox.faults;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteWorkerShutdownTest extends WorkerShutdownContract {
  SqliteWorkerShutdownTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
