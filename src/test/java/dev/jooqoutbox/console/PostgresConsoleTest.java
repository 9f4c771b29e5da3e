package dev.jooqoutbox.console;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresConsoleTest extends ConsoleContract {
  PostgresConsoleTest() {
    super(TestDatabase.Kind.POSTGRES);
  }
}
