package dev.jooqoutbox.faults;

import dev.jooqoutbox.testing.TestDatabase;

/**
 * Three relay JVMs on one MariaDB database: 20,000 messages over 200 aggregates, as on PostgreSQL.
 */
class MariaDbProcessCrashTest extends ProcessCrashContract {
  MariaDbProcessCrashTest() {
    super(TestDatabase.Kind.MARIADB, 3, 20_000, 200);
  }
}
