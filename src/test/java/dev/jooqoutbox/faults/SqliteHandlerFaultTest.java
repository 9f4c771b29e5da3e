package dev.jooqoutbox.faults;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteHandlerFaultTest extends HandlerFaultContract {
  SqliteHandlerFaultTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
