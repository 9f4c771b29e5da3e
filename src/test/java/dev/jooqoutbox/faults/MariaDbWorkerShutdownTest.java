package dev.jooqoutbox.faults;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbWorkerShutdownTest extends WorkerShutdownContract {
  MariaDbWorkerShutdownTest() {
    super(TestDatabase.Kind.MARIADB);
  }
}
