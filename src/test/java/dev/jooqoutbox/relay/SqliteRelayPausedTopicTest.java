package dev.jooqoutbox.relay;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteRelayPausedTopicTest extends RelayPausedTopicContract {
  SqliteRelayPausedTopicTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
