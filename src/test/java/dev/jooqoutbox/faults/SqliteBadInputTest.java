package dev.jooqoutbox.faults;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteBadInputTest extends BadInputContract {
  SqliteBadInputTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
