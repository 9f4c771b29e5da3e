package dev.jooqoutbox.faults;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbHandlerFaultTest extends HandlerFaultContract {
  MariaDbHandlerFaultTest() {
    super(TestDatabase.Kind.MARIADB);
  }
}
