package dev.jooqoutbox.cli.demo;

import dev.jooqoutbox.testing.TestDatabase.Kind;

class SqliteDemoTest extends DemoContract {

  SqliteDemoTest() {
    super(Kind.SQLITE);
  }
}
