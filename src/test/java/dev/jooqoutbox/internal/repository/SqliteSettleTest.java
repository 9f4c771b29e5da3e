package dev.jooqoutbox.internal.repository;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteSettleTest extends SettleContract {
  @Override
  StoreSubject open() {
    return new DatabaseStoreSubject(TestDatabase.Kind.SQLITE);
  }
}
