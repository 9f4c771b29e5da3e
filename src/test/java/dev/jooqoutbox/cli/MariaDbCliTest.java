package dev.jooqoutbox.cli;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbCliTest extends CliContract {
  MariaDbCliTest() {
    super(TestDatabase.Kind.MARIADB);
  }

  @Override
  String unreachableUrl() {
    return "jdbc:mariadb://127.0.0.1:1/x";
  }
}
