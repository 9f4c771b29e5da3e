package dev.jooqoutbox.internal.wakeup;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteRelayWakeupTest extends RelayWakeupContract {
  SqliteRelayWakeupTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
