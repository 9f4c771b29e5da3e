package dev.jooqoutbox.internal.repository;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbSettleTest extends SettleContract {
  @Override
  StoreSubject open() {
    return new DatabaseStoreSubject(TestDatabase.Kind.MARIADB);
  }
}
