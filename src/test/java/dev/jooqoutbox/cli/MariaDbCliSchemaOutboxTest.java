package dev.jooqoutbox.cli;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbCliSchemaOutboxTest extends CliSchemaOutboxContract {
  MariaDbCliSchemaOutboxTest() {
    super(TestDatabase.Kind.MARIADB);
  }
}
