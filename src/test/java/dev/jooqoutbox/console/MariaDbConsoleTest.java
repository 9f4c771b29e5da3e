package dev.jooqoutbox.console;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbConsoleTest extends ConsoleContract {
  MariaDbConsoleTest() {
    super(TestDatabase.Kind.MARIADB);
  }
}
