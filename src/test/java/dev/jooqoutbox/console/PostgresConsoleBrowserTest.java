package dev.jooqoutbox.console;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresConsoleBrowserTest extends ConsoleBrowserContract {
  PostgresConsoleBrowserTest() {
    super(TestDatabase.Kind.POSTGRES);
  }
}
