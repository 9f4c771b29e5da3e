package dev.jooqoutbox.faults;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresBadInputTest extends BadInputContract {
  PostgresBadInputTest() {
    super(TestDatabase.Kind.POSTGRES);
  }
}
