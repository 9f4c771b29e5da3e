package dev.jooqoutbox.relay;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbRelayPausedTopicTest extends RelayPausedTopicContract {
  MariaDbRelayPausedTopicTest() {
    super(TestDatabase.Kind.MARIADB);
  }
}
