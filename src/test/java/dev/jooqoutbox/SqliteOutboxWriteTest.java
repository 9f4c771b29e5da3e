package dev.jooqoutbox;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteOutboxWriteTest extends OutboxWriteContract {
  SqliteOutboxWriteTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
