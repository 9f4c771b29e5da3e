package dev.jooqoutbox;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresInboxTest extends InboxContract {
  PostgresInboxTest() {
    super(TestDatabase.Kind.POSTGRES);
  }
}
