package dev.jooqoutbox.relay;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresRelayManyRelaysTest extends RelayManyRelaysContract {
  PostgresRelayManyRelaysTest() {
    super(TestDatabase.Kind.POSTGRES);
  }
}
