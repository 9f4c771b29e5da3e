package dev.jooqoutbox.repository;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresSmokeTest extends SmokeContract {
  PostgresSmokeTest() {
    super(TestDatabase.Kind.POSTGRES);
  }
}
