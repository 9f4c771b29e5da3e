package dev.jooqoutbox.cli;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresCliTest extends CliContract {
  PostgresCliTest() {
    super(TestDatabase.Kind.POSTGRES);
  }
}
