package dev.jooqoutbox;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresNamedOutboxTest extends NamedOutboxContract {
  PostgresNamedOutboxTest() {
    super(TestDatabase.Kind.POSTGRES);
  }
}
