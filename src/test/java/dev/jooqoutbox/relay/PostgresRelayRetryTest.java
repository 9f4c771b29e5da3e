package dev.jooqoutbox.relay;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresRelayRetryTest extends RelayRetryContract {
  PostgresRelayRetryTest() {
    super(TestDatabase.Kind.POSTGRES);
  }
}
