package dev.jooqoutbox.relay;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteRelayRetryTest extends RelayRetryContract {
  SqliteRelayRetryTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
