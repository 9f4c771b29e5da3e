package dev.jooqoutbox.internal.repository;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbSettleTest extends SettleContract {
  MariaDbSettleTest() {
    super(TestDatabase.Kind.MARIADB);
  }
}
