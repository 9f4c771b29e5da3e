package dev.jooqoutbox.faults;

import dev.jooqoutbox.testing.TestDatabase;

/**
 * Three relay JVMs on one PostgreSQL schema: 10,000 messages (topped up while the kills go on) over
 * 200 aggregates.
 */
class PostgresProcessCrashTest extends ProcessCrashContract {
  PostgresProcessCrashTest() {
    super(TestDatabase.Kind.POSTGRES, 3, 10_000, 200);
  }
}
