package dev.jooqoutbox;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbExactKeysTest extends ExactKeysContract {
  MariaDbExactKeysTest() {
    super(TestDatabase.Kind.MARIADB);
  }
}
