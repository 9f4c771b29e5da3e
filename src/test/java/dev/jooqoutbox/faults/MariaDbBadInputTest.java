package dev.jooqoutbox.faults;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbBadInputTest extends BadInputContract {
  MariaDbBadInputTest() {
    super(TestDatabase.Kind.MARIADB);
  }
}
