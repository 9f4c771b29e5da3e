package dev.jooqoutbox;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteOutboxAdminTest extends OutboxAdminContract {
  SqliteOutboxAdminTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
