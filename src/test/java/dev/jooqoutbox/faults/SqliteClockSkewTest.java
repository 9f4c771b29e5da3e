package dev.jooqoutbox.faults;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteClockSkewTest extends ClockSkewContract {
  SqliteClockSkewTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
