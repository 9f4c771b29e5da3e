package dev.jooqoutbox.cli;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresCliTest extends CliContract {
  PostgresCliTest() {
    super(TestDatabase.Kind.POSTGRES);
  }

  @Override
  String unreachableUrl() {
    return "jdbc:postgresql://127.0.0.1:1/x";
  }
}
