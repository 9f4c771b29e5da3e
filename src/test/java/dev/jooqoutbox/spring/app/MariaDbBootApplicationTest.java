package dev.jooqoutbox.spring.app;

import dev.jooqoutbox.testing.TestDatabase;
import org.junit.jupiter.api.BeforeAll;

class MariaDbBootApplicationTest extends BootApplicationContract {

  @BeforeAll
  static void database() {
    database(TestDatabase.Kind.MARIADB);
  }
}
