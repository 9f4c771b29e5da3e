package dev.jooqoutbox.cli.demo;

import dev.jooqoutbox.testing.TestDatabase.Kind;

class MariaDbDemoTest extends DemoContract {

  MariaDbDemoTest() {
    super(Kind.MARIADB);
  }
}
