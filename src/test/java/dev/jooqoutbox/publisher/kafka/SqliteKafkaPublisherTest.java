package dev.jooqoutbox.publisher.kafka;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteKafkaPublisherTest extends KafkaPublisherContract {
  SqliteKafkaPublisherTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
