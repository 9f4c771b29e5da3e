package dev.jooqoutbox.relay;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresRelayLaneTest extends RelayLaneContract {
  PostgresRelayLaneTest() {
    super(TestDatabase.Kind.POSTGRES);
  }
}
