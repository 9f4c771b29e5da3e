package dev.jooqoutbox.schema;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresSchemaConformanceTest extends SchemaConformanceContract {
  PostgresSchemaConformanceTest() {
    super(TestDatabase.Kind.POSTGRES);
  }
}
