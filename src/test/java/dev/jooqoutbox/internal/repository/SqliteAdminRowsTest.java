package dev.jooqoutbox.internal.repository;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteAdminRowsTest extends AdminRowsContract {
  SqliteAdminRowsTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
