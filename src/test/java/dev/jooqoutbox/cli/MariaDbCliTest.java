package dev.jooqoutbox.cli;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbCliTest extends CliContract {
  MariaDbCliTest() {
    super(TestDatabase.Kind.MARIADB);
  }
}
