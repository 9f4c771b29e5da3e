package dev.jooqoutbox.testing;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * For tests of outboxes in two schemas (PostgreSQL) or databases (MariaDB) of one server: besides
 * {@link #db}, a second empty one, {@link #other}, for each test, dropped after it.
 */
public abstract class TwoEmptyDatabasesPerTest extends EmptyDatabasePerTest {

  protected TestDatabase other;

  protected TwoEmptyDatabasesPerTest(TestDatabase.Kind kind) {
    super(kind);
  }

  @BeforeEach
  void createTheSecondDatabase() {
    other = TestDatabase.empty(kind, 1);
  }

  @AfterEach
  void dropTheSecondDatabase() {
    other.close();
  }
}
