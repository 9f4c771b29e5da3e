package dev.jooqoutbox.cli;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbCliNamedOutboxTest extends CliNamedOutboxContract {
  MariaDbCliNamedOutboxTest() {
    super(TestDatabase.Kind.MARIADB);
  }
}
