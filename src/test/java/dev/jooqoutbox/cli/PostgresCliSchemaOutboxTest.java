package dev.jooqoutbox.cli;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresCliSchemaOutboxTest extends CliSchemaOutboxContract {
  PostgresCliSchemaOutboxTest() {
    super(TestDatabase.Kind.POSTGRES);
  }
}
