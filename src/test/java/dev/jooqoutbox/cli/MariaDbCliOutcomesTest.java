package dev.jooqoutbox.cli;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbCliOutcomesTest extends CliOutcomesContract {
  MariaDbCliOutcomesTest() {
    super(TestDatabase.Kind.MARIADB);
  }
}
