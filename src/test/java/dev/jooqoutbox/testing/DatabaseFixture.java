package dev.jooqoutbox.testing;

import java.time.Instant;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;

/**
 * The database lifecycle every contract shares: one migrated, isolated database of the subclass's
 * dialect per test class, emptied before each test, and a {@link MutableClock} set back to {@link
 * #START} before each test. Subclasses add their own {@code @BeforeEach} for what they build on it;
 * JUnit runs this class's first.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class DatabaseFixture {

  /** Where every test's clock starts. */
  public static final Instant START = Instant.parse("2026-03-01T10:00:00Z");

  protected final TestDatabase.Kind kind;
  protected TestDatabase db;
  protected MutableClock clock;

  protected DatabaseFixture(TestDatabase.Kind kind) {
    this.kind = kind;
  }

  @BeforeAll
  void createDatabase() {
    db = TestDatabase.migrated(kind);
  }

  @AfterAll
  void dropDatabase() {
    db.close();
  }

  @BeforeEach
  void emptyTablesAndResetTheClock() {
    db.truncate();
    clock = new MutableClock(START);
  }
}
