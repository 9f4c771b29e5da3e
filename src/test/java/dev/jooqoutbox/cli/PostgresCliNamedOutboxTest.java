package dev.jooqoutbox.cli;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresCliNamedOutboxTest extends CliNamedOutboxContract {
  PostgresCliNamedOutboxTest() {
    super(TestDatabase.Kind.POSTGRES);
  }
}
