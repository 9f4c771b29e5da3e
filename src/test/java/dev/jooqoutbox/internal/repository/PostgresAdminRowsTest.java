package dev.jooqoutbox.internal.repository;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresAdminRowsTest extends AdminRowsContract {
  PostgresAdminRowsTest() {
    super(TestDatabase.Kind.POSTGRES);
  }
}
