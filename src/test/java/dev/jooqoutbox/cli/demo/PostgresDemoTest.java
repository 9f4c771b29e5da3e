package dev.jooqoutbox.cli.demo;

import dev.jooqoutbox.testing.TestDatabase.Kind;

class PostgresDemoTest extends DemoContract {

  PostgresDemoTest() {
    super(Kind.POSTGRES);
  }
}
