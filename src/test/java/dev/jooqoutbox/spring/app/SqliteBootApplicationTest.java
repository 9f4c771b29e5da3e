package dev.jooqoutbox.spring.app;

import dev.jooqoutbox.testing.TestDatabase;
import org.junit.jupiter.api.BeforeAll;

class SqliteBootApplicationTest extends BootApplicationContract {

  @BeforeAll
  static void database() {
    database(TestDatabase.Kind.SQLITE);
  }
}
