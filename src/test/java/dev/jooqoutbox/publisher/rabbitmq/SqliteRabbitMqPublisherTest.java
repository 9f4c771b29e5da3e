package dev.jooqoutbox.publisher.rabbitmq;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteRabbitMqPublisherTest extends RabbitMqPublisherContract {
  SqliteRabbitMqPublisherTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
