package dev.jooqoutbox.relay;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresRelayPausedTopicTest extends RelayPausedTopicContract {
  PostgresRelayPausedTopicTest() {
    super(TestDatabase.Kind.POSTGRES);
  }
}
