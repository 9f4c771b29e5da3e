package dev.jooqoutbox.internal.repository;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbAdminRowsTest extends AdminRowsContract {
  MariaDbAdminRowsTest() {
    super(TestDatabase.Kind.MARIADB);
  }
}
