package dev.jooqoutbox.internal.repository;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresSettleTest extends SettleContract {
  PostgresSettleTest() {
    super(TestDatabase.Kind.POSTGRES);
  }
}
