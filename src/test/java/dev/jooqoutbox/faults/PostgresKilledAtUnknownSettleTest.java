package dev.jooqoutbox.faults;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresKilledAtUnknownSettleTest extends KilledAtUnknownSettleContract {
  PostgresKilledAtUnknownSettleTest() {
    super(TestDatabase.Kind.POSTGRES);
  }
}
