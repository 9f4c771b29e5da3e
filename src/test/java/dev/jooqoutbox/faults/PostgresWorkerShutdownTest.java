package dev.jooqoutbox.faults;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresWorkerShutdownTest extends WorkerShutdownContract {
  PostgresWorkerShutdownTest() {
    super(TestDatabase.Kind.POSTGRES);
  }
}
