package dev.jooqoutbox.internal.repository;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteSettleTest extends SettleContract {
  SqliteSettleTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
