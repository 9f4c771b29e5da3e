package dev.jooqoutbox;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresSchemaOutboxTest extends SchemaOutboxContract {
  PostgresSchemaOutboxTest() {
    super(TestDatabase.Kind.POSTGRES);
  }
}
