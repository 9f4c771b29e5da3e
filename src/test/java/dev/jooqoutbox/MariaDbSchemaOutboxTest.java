package dev.jooqoutbox;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbSchemaOutboxTest extends SchemaOutboxContract {
  MariaDbSchemaOutboxTest() {
    super(TestDatabase.Kind.MARIADB);
  }
}
