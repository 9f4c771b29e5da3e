package dev.jooqoutbox;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbOutboxAdminTest extends OutboxAdminContract {
  MariaDbOutboxAdminTest() {
    super(TestDatabase.Kind.MARIADB);
  }
}
