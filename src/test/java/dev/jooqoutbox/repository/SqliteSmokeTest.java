package dev.jooqoutbox.repository;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteSmokeTest extends SmokeContract {
  SqliteSmokeTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
