package dev.jooqoutbox.faults;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresInjectionTest extends InjectionContract {
  PostgresInjectionTest() {
    super(TestDatabase.Kind.POSTGRES);
  }
}
