package dev.jooqoutbox;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbNamedOutboxTest extends NamedOutboxContract {
  MariaDbNamedOutboxTest() {
    super(TestDatabase.Kind.MARIADB);
  }
}
