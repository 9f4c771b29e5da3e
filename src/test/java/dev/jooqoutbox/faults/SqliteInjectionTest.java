package dev.jooqoutbox.faults;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteInjectionTest extends InjectionContract {
  SqliteInjectionTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
