package dev.jooqoutbox.internal.wakeup;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresWakeupTest extends WakeupContract {
  PostgresWakeupTest() {
    super(TestDatabase.Kind.POSTGRES);
  }
}
