package dev.jooqoutbox.faults;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresHandlerFaultTest extends HandlerFaultContract {
  PostgresHandlerFaultTest() {
    super(TestDatabase.Kind.POSTGRES);
  }
}
