package dev.jooqoutbox.testing;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.jooqoutbox.Outbox;
import dev.jooqoutbox.internal.repository.JooqOutboxRepository;
import dev.jooqoutbox.schema.tables.records.OutboxMessageRecord;
import java.time.Instant;
import org.jooq.Condition;
import org.jooq.TransactionalRunnable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;

/**
 * The database lifecycle every contract shares: one migrated, isolated database of the subclass's
 * dialect per test class, emptied before each test, a {@link MutableClock} set back to {@link
 * #START} before each test, and the repository and an outbox on that database. Subclasses add their
 * own {@code @BeforeEach} for what they build on it; JUnit runs this class's first.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class DatabaseFixture {

  /** Where every test's clock starts. */
  public static final Instant START = Instant.parse("2026-03-01T10:00:00Z");

  protected final TestDatabase.Kind kind;
  protected TestDatabase db;
  protected MutableClock clock;

  /** The repository on {@link #db}, for the whole class. */
  protected JooqOutboxRepository repository;

  /** An outbox on {@link #db} writing at {@link #clock}'s time, new for each test. */
  protected Outbox outbox;

  protected DatabaseFixture(TestDatabase.Kind kind) {
    this.kind = kind;
  }

  /** The database for this class: migrated, with the default pool, unless a contract needs more. */
  protected TestDatabase open() {
    return TestDatabase.migrated(kind);
  }

  @BeforeAll
  void createDatabase() {
    db = open();
    repository = new JooqOutboxRepository(db.dsl());
  }

  @AfterAll
  void dropDatabase() {
    db.close();
  }

  @BeforeEach
  void emptyTablesAndResetTheClock() {
    db.truncate();
    clock = new MutableClock(START);
    outbox = Outbox.builder(db.dsl()).clock(clock).build();
  }

  /** The outbox row with this {@code seq}. */
  protected OutboxMessageRecord row(long seq) {
    return db.dsl().selectFrom(OUTBOX_MESSAGE).where(OUTBOX_MESSAGE.SEQ.eq(seq)).fetchSingle();
  }

  /** The {@code seq} of the one message of this aggregate. */
  protected long seqOfAggregate(String aggregate) {
    return seqWhere(OUTBOX_MESSAGE.AGGREGATE.eq(aggregate));
  }

  /** The {@code seq} of the one message with this id. */
  protected long seqOf(String id) {
    return seqWhere(OUTBOX_MESSAGE.ID.eq(id));
  }

  private long seqWhere(Condition condition) {
    return db.dsl()
        .select(OUTBOX_MESSAGE.SEQ)
        .from(OUTBOX_MESSAGE)
        .where(condition)
        .fetchSingle(OUTBOX_MESSAGE.SEQ);
  }

  /** What a transaction on {@link #db} running {@code work} threw (its rollback done). */
  protected Throwable failureOfTransaction(TransactionalRunnable work) {
    return catchThrowable(() -> db.dsl().transaction(work));
  }
}
