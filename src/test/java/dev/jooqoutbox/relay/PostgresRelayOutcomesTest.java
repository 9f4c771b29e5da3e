package dev.jooqoutbox.relay;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresRelayOutcomesTest extends RelayOutcomesContract {
  PostgresRelayOutcomesTest() {
    super(TestDatabase.Kind.POSTGRES);
  }
}
