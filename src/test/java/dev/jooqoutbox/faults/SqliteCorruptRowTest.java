package dev.jooqoutbox.faults;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteCorruptRowTest extends CorruptRowContract {
  SqliteCorruptRowTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
