package dev.jooqoutbox;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresOutboxWriteTest extends OutboxWriteContract {
  PostgresOutboxWriteTest() {
    super(TestDatabase.Kind.POSTGRES);
  }
}
