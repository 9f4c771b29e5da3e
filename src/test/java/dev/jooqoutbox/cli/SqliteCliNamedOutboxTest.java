package dev.jooqoutbox.cli;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteCliNamedOutboxTest extends CliNamedOutboxContract {
  SqliteCliNamedOutboxTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
