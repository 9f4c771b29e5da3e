package dev.jooqoutbox;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresOutboxAdminTest extends OutboxAdminContract {
  PostgresOutboxAdminTest() {
    super(TestDatabase.Kind.POSTGRES);
  }
}
