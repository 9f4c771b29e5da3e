package dev.jooqoutbox.faults;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbInjectionTest extends InjectionContract {
  MariaDbInjectionTest() {
    super(TestDatabase.Kind.MARIADB);
  }
}
