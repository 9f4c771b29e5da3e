package dev.jooqoutbox;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresExactKeysTest extends ExactKeysContract {
  PostgresExactKeysTest() {
    super(TestDatabase.Kind.POSTGRES);
  }
}
