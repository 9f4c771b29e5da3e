package dev.jooqoutbox.cli;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresCliOutcomesTest extends CliOutcomesContract {
  PostgresCliOutcomesTest() {
    super(TestDatabase.Kind.POSTGRES);
  }
}
