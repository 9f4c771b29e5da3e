package dev.jooqoutbox.testing;

import org.jooq.DSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * For schema tests that migrate, upgrade or roll back: a new empty database (no outbox tables) of
 * the subclass's dialect for each test, dropped after it.
 */
public abstract class EmptyDatabasePerTest {

  protected final TestDatabase.Kind kind;
  protected TestDatabase db;
  protected DSLContext dsl;

  protected EmptyDatabasePerTest(TestDatabase.Kind kind) {
    this.kind = kind;
  }

  @BeforeEach
  void createEmptyDatabase() {
    db = TestDatabase.empty(kind);
    dsl = db.dsl();
  }

  @AfterEach
  void dropEmptyDatabase() {
    db.close();
  }
}
