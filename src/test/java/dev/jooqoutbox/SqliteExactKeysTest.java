package dev.jooqoutbox;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteExactKeysTest extends ExactKeysContract {
  SqliteExactKeysTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
