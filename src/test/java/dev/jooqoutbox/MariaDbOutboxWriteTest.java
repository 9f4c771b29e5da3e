package dev.jooqoutbox;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbOutboxWriteTest extends OutboxWriteContract {
  MariaDbOutboxWriteTest() {
    super(TestDatabase.Kind.MARIADB);
  }
}
