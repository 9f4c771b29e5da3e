package dev.jooqoutbox.schema;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbSchemaConformanceTest extends SchemaConformanceContract {
  MariaDbSchemaConformanceTest() {
    super(TestDatabase.Kind.MARIADB);
  }
}
