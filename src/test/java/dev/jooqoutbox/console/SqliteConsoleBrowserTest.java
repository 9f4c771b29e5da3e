package dev.jooqoutbox.console;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteConsoleBrowserTest extends ConsoleBrowserContract {
  SqliteConsoleBrowserTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
