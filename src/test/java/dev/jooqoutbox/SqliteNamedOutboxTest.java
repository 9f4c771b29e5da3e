package dev.jooqoutbox;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteNamedOutboxTest extends NamedOutboxContract {
  SqliteNamedOutboxTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
