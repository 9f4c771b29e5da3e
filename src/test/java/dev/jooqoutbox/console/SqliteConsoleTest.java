package dev.jooqoutbox.console;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteConsoleTest extends ConsoleContract {
  SqliteConsoleTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
