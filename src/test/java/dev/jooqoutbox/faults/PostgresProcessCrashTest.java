package dev.jooqoutbox.faults;

import dev.jooqoutbox.testing.TestDatabase;

/** Three relay JVMs on one PostgreSQL schema: 20,000 messages over 200 aggregates. */
class PostgresProcessCrashTest extends ProcessCrashContract {
  PostgresProcessCrashTest() {
    super(TestDatabase.Kind.POSTGRES, 3, 20_000, 200);
  }
}
