package dev.jooqoutbox.faults;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresCorruptRowTest extends CorruptRowContract {
  PostgresCorruptRowTest() {
    super(TestDatabase.Kind.POSTGRES);
  }
}
