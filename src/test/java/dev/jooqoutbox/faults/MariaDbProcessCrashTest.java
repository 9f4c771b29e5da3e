package dev.jooqoutbox.faults;

import dev.jooqoutbox.testing.TestDatabase;

/**
 * Three relay JVMs on one MariaDB database: 10,000 messages (topped up while the kills go on) over
 * 200 aggregates, as on PostgreSQL.
 */
class MariaDbProcessCrashTest extends ProcessCrashContract {
  MariaDbProcessCrashTest() {
    super(TestDatabase.Kind.MARIADB, 3, 10_000, 200);
  }
}
