package dev.jooqoutbox;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteInboxTest extends InboxContract {
  SqliteInboxTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
