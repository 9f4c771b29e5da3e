package dev.jooqoutbox.faults;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbCorruptRowTest extends CorruptRowContract {
  MariaDbCorruptRowTest() {
    super(TestDatabase.Kind.MARIADB);
  }
}
