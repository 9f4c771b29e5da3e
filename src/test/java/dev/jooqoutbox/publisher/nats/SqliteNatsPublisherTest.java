package dev.jooqoutbox.publisher.nats;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteNatsPublisherTest extends NatsPublisherContract {
  SqliteNatsPublisherTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
