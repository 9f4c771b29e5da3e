package dev.jooqoutbox.schema;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteSchemaConformanceTest extends SchemaConformanceContract {
  SqliteSchemaConformanceTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
