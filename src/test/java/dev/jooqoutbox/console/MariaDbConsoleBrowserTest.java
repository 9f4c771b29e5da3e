package dev.jooqoutbox.console;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbConsoleBrowserTest extends ConsoleBrowserContract {
  MariaDbConsoleBrowserTest() {
    super(TestDatabase.Kind.MARIADB);
  }
}
