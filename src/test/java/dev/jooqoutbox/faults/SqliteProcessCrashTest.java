package dev.jooqoutbox.faults;

import dev.jooqoutbox.testing.TestDatabase;

/**
 * Two relay JVMs on one SQLite file. 5,000 messages over 100 aggregates, a quarter of the
 * PostgreSQL run: SQLite has a single writer, and each booking is its own write transaction.
 */
class SqliteProcessCrashTest extends ProcessCrashContract {
  SqliteProcessCrashTest() {
    super(TestDatabase.Kind.SQLITE, 2, 5_000, 100);
  }
}
