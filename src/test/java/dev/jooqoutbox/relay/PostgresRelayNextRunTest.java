package dev.jooqoutbox.relay;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresRelayNextRunTest extends RelayNextRunContract {
  PostgresRelayNextRunTest() {
    super(TestDatabase.Kind.POSTGRES);
  }
}
