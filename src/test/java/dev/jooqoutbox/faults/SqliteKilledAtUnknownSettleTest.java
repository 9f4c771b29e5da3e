package dev.jooqoutbox.faults;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteKilledAtUnknownSettleTest extends KilledAtUnknownSettleContract {
  SqliteKilledAtUnknownSettleTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
