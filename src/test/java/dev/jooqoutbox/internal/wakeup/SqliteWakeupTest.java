package dev.jooqoutbox.internal.wakeup;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteWakeupTest extends WakeupContract {
  SqliteWakeupTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
