package dev.jooqoutbox;

import static dev.jooqoutbox.schema.Tables.INBOX_MESSAGE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.jooqoutbox.schema.tables.records.InboxMessageRecord;
import dev.jooqoutbox.testing.DatabaseFixture;
import dev.jooqoutbox.testing.LockWait;
import dev.jooqoutbox.testing.TestDatabase;
import dev.jooqoutbox.testing.WarningLog;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jooq.DSLContext;
import org.jooq.exception.DataAccessException;
import org.jooq.exception.SQLStateClass;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link Inbox}: a message id counts as seen only once its consumer's transaction commits. */
abstract class InboxContract extends DatabaseFixture {

  private static final int COPIES = 8;

  private Inbox inbox;

  InboxContract(TestDatabase.Kind kind) {
    super(kind);
  }

  @Override
  protected TestDatabase open() {
    // The copies, the first delivery and the lock-wait observer each need a connection.
    TestDatabase database = TestDatabase.empty(kind, COPIES + 4);
    database.migrate();
    return database;
  }

  @BeforeEach
  void setUp() {
    inbox = new Inbox(clock);
  }

  @Test
  void firstDeliveryIsNewAndTheSecondIsACopy() {
    assertThat(seenInTransaction("billing", "m-1")).isFalse();
    clock.advance(java.time.Duration.ofMinutes(1));
    assertThat(seenInTransaction("billing", "m-1")).isTrue();

    InboxMessageRecord row = db.dsl().selectFrom(INBOX_MESSAGE).fetchSingle();
    assertThat(row.getConsumer()).isEqualTo("billing");
    assertThat(row.getMessageId()).isEqualTo("m-1");
    assertThat(row.getSeenAt()).isEqualTo(START);
  }

  @Test
  void aCopyIsNotAWarning() {
    assertThat(seenInTransaction("billing", "m-1")).isFalse();
    try (WarningLog log = WarningLog.capture()) {
      assertThat(seenInTransaction("billing", "m-1")).isTrue();
      assertThat(inbox.runOnce(db.dsl(), "billing", "m-1", tx -> {})).isFalse();
      assertThat(log.warnings()).as("what the driver or the pool logged for copies").isEmpty();
    }
  }

  @Test
  void consumersAndMessageIdsAreRecordedSeparately() {
    assertThat(seenInTransaction("billing", "m-1")).isFalse();
    assertThat(seenInTransaction("shipping", "m-1")).isFalse();
    assertThat(seenInTransaction("billing", "m-2")).isFalse();
    // Ids compare exactly: case matters.
    assertThat(seenInTransaction("billing", "M-1")).isFalse();
    assertThat(seenInTransaction("billing", "m-1")).isTrue();
    assertThat(db.dsl().fetchCount(INBOX_MESSAGE)).isEqualTo(4);
  }

  @Test
  void secondCallInTheSameTransactionSeesTheFirst() {
    db.dsl()
        .transaction(
            tx -> {
              assertThat(inbox.seen(tx.dsl(), "billing", "m-1")).isFalse();
              assertThat(inbox.seen(tx.dsl(), "billing", "m-1")).isTrue();
              // A duplicate leaves the transaction usable (PostgreSQL would abort on an error).
              assertThat(inbox.seen(tx.dsl(), "billing", "m-2")).isFalse();
            });
    assertThat(db.dsl().fetchCount(INBOX_MESSAGE)).isEqualTo(2);
  }

  @Test
  void concurrentCopyWaitsForTheFirstDeliveryAndIsDropped() throws Exception {
    assertThat(racingDelivery(true)).as("second delivery is a copy").isTrue();
    assertThat(db.dsl().fetchCount(INBOX_MESSAGE)).isEqualTo(1);
  }

  @Test
  void concurrentCopyOfARolledBackDeliveryRuns() throws Exception {
    assertThat(racingDelivery(false))
        .as("second delivery is a copy, but the first never committed")
        .isFalse();
    assertThat(db.dsl().fetchCount(INBOX_MESSAGE)).isEqualTo(1);
  }

  /**
   * A first delivery records m-1 and stays open while a second delivery of m-1 runs in another
   * thread; once the second is blocked behind the first, the first commits or rolls back. Returns
   * what the second delivery's seen said.
   */
  private boolean racingDelivery(boolean firstCommits) throws Exception {
    ExecutorService other = Executors.newSingleThreadExecutor();
    try (Connection connection = db.dataSource().getConnection()) {
      connection.setAutoCommit(false);
      assertThat(inbox.seen(DSL.using(connection, db.dialect()), "billing", "m-1")).isFalse();
      LockWait lockWait = LockWait.behind(db, connection);

      Future<Boolean> second =
          other.submit(
              () ->
                  lockWait.inWaitingTransaction(db.dsl(), tx -> inbox.seen(tx, "billing", "m-1")));
      lockWait.awaitBlocked(Duration.ofSeconds(30));
      if (firstCommits) {
        connection.commit();
      } else {
        connection.rollback();
      }
      connection.setAutoCommit(true);
      return second.get(30, TimeUnit.SECONDS);
    } finally {
      other.shutdownNow();
    }
  }

  @Test
  void copiesBehindARolledBackFirstDeliveryWaitAndOneOfThemRuns() throws Exception {
    // Several rounds: on MariaDB, which waiting copies become deadlock victims varies by round.
    for (int round = 1; round <= 3; round++) {
      List<String> outcomes = copiesBehindTheFirstDelivery(false, "m-" + round, false);
      assertThat(outcomes).as("outcome per copy").hasSize(COPIES).containsOnlyOnce(RAN);
      assertThat(outcomes).as("outcome per copy").isSubsetOf(RAN, COPY);
      assertThat(db.dsl().fetchCount(INBOX_MESSAGE)).isEqualTo(round);
    }
  }

  @Test
  void copiesBehindACommittedFirstDeliveryWaitAndAllAreDropped() throws Exception {
    List<String> outcomes = copiesBehindTheFirstDelivery(true, "m-1", false);
    assertThat(outcomes).as("outcome per copy").hasSize(COPIES).containsOnly(COPY);
    assertThat(db.dsl().fetchCount(INBOX_MESSAGE)).isEqualTo(1);
  }

  @Test
  void copiesInsideCallerTransactionsReturnOrThrowTheVictimNeverRetryIt() throws Exception {
    // Inside a caller's transaction, a victim's whole transaction is gone (MariaDB), the caller's
    // earlier statement included: runOnce must throw it, not go on as if that statement stood.
    for (int round = 1; round <= 3; round++) {
      List<String> outcomes = copiesBehindTheFirstDelivery(false, "m-" + round, true);
      assertThat(outcomes).as("outcome per copy").hasSize(COPIES).containsOnlyOnce(RAN);
      assertThat(outcomes).as("outcome per copy").isSubsetOf(RAN, COPY, VICTIM);
      for (int i = 0; i < COPIES; i++) {
        int earlier =
            db.dsl()
                .fetchCount(
                    INBOX_MESSAGE,
                    INBOX_MESSAGE
                        .CONSUMER
                        .eq("caller-" + i)
                        .and(INBOX_MESSAGE.MESSAGE_ID.eq("m-" + round)));
        assertThat(earlier)
            .as("the earlier statement of copy %d (%s), round %d", i, outcomes.get(i), round)
            .isEqualTo(outcomes.get(i).equals(VICTIM) ? 0 : 1);
      }
    }
  }

  private static final String RAN = "ran the work";
  private static final String COPY = "returned as a copy";
  private static final String VICTIM = "threw a deadlock victim";

  /**
   * A first delivery records {@code messageId} and stays open while {@link #COPIES} copies call
   * {@link Inbox#runOnce} for it, each on its own connection (inside a transaction of the caller's
   * when {@code insideCallerTransaction}); once every copy is blocked behind the first delivery, it
   * commits or rolls back. Returns each copy's outcome, after checking that the work ran as often
   * as they said; any other error fails the test, as does a copy still waiting after a minute.
   */
  private List<String> copiesBehindTheFirstDelivery(
      boolean firstCommits, String messageId, boolean insideCallerTransaction) throws Exception {
    ExecutorService copies = Executors.newFixedThreadPool(COPIES);
    AtomicInteger workRuns = new AtomicInteger();
    try (Connection first = db.dataSource().getConnection()) {
      first.setAutoCommit(false);
      assertThat(inbox.seen(DSL.using(first, db.dialect()), "billing", messageId)).isFalse();
      LockWait lockWait = LockWait.behind(db, first);

      List<Future<String>> results = new ArrayList<>();
      for (int i = 0; i < COPIES; i++) {
        String caller = "caller-" + i;
        results.add(
            copies.submit(
                () -> {
                  try (Connection own = db.dataSource().getConnection()) {
                    DSLContext dsl = DSL.using(own, db.dialect());
                    try (LockWait.Waiter waiter = lockWait.waiter(dsl)) {
                      Function<DSLContext, Boolean> copy =
                          on ->
                              inbox.runOnce(
                                  on, "billing", messageId, tx -> workRuns.incrementAndGet());
                      boolean ran =
                          insideCallerTransaction
                              ? dsl.transactionResult(
                                  tx -> {
                                    // The caller's own earlier statement: a row of its own.
                                    inbox.seen(tx.dsl(), caller, messageId);
                                    return copy.apply(tx.dsl());
                                  })
                              : copy.apply(dsl);
                      return ran ? RAN : COPY;
                    } catch (DataAccessException e) {
                      if (e.sqlStateClass() == SQLStateClass.C40_TRANSACTION_ROLLBACK) {
                        return VICTIM;
                      }
                      throw e;
                    }
                  }
                }));
      }
      lockWait.awaitBlocked(COPIES, Duration.ofSeconds(30));
      assertThat(workRuns).as("no copy ran while the first delivery was open").hasValue(0);
      if (firstCommits) {
        first.commit();
      } else {
        first.rollback();
      }
      first.setAutoCommit(true);

      List<String> outcomes = new ArrayList<>();
      for (Future<String> result : results) {
        outcomes.add(result.get(60, TimeUnit.SECONDS));
      }
      assertThat(workRuns.get()).as("work runs").isEqualTo(Collections.frequency(outcomes, RAN));
      return outcomes;
    } finally {
      copies.shutdownNow();
    }
  }

  @Test
  void rolledBackConsumerWorkIsNotRecorded() {
    Throwable thrown =
        failureOfTransaction(
            tx -> {
              assertThat(inbox.seen(tx.dsl(), "billing", "m-1")).isFalse();
              throw new IllegalStateException("handler failed");
            });
    assertThat(thrown).isInstanceOf(IllegalStateException.class);

    assertThat(db.dsl().fetchCount(INBOX_MESSAGE)).isZero();
    assertThat(seenInTransaction("billing", "m-1")).isFalse();
  }

  @Test
  void runOnceRunsTheWorkForTheFirstDeliveryOnly() {
    List<String> effects = new ArrayList<>();

    assertThat(inbox.runOnce(db.dsl(), "billing", "m-1", tx -> effects.add("first"))).isTrue();
    assertThat(inbox.runOnce(db.dsl(), "billing", "m-1", tx -> effects.add("copy"))).isFalse();
    assertThat(inbox.runOnce(db.dsl(), "billing", "m-2", tx -> effects.add("other"))).isTrue();

    assertThat(effects).containsExactly("first", "other");
  }

  @Test
  void runOnceWhoseWorkFailsRecordsNothing() {
    Throwable thrown =
        billingRunOnceFailure(
            tx -> {
              throw new IllegalStateException("handler failed");
            });
    assertThat(thrown).isInstanceOf(IllegalStateException.class);
    assertThat(db.dsl().fetchCount(INBOX_MESSAGE)).isZero();

    List<String> effects = new ArrayList<>();
    assertThat(inbox.runOnce(db.dsl(), "billing", "m-1", tx -> effects.add("retry"))).isTrue();
    assertThat(effects).containsExactly("retry");
  }

  @Test
  void runOnceNeverRunsTheWorkAgainNotEvenForADeadlockInIt() {
    AtomicInteger runs = new AtomicInteger();
    DataAccessException deadlock =
        new DataAccessException("work deadlocked", new SQLException("deadlock", "40001"));
    assertThat(deadlock.sqlStateClass()).isEqualTo(SQLStateClass.C40_TRANSACTION_ROLLBACK);

    Throwable thrown =
        billingRunOnceFailure(
            tx -> {
              runs.incrementAndGet();
              throw deadlock;
            });
    assertThat(thrown).isSameAs(deadlock);
    assertThat(runs).hasValue(1);
    assertThat(db.dsl().fetchCount(INBOX_MESSAGE)).isZero();
  }

  @Test
  void autocommitConnectionIsRefused() throws Exception {
    assertThatThrownBy(() -> inbox.seen(db.dsl(), "billing", "m-1"))
        .isInstanceOf(NoTransactionException.class)
        .hasMessageContaining("autocommit");
    try (Connection connection = db.dataSource().getConnection()) {
      DSLContext autocommit = DSL.using(connection, db.dialect());
      assertThatThrownBy(() -> inbox.seen(autocommit, "billing", "m-1"))
          .isInstanceOf(NoTransactionException.class);
    }
    assertThat(db.dsl().fetchCount(INBOX_MESSAGE)).isZero();
  }

  @Test
  void badConsumerOrMessageIdIsRefused() {
    for (String bad : new String[] {null, "", "x".repeat(256), "nul\0", "lone \uD800"}) {
      db.dsl()
          .transaction(
              tx -> {
                assertThatThrownBy(() -> inbox.seen(tx.dsl(), bad, "m-1"))
                    .isInstanceOf(InvalidMessageException.class)
                    .extracting(e -> ((InvalidMessageException) e).argument())
                    .isEqualTo("consumer");
                assertThatThrownBy(() -> inbox.seen(tx.dsl(), "billing", bad))
                    .isInstanceOf(InvalidMessageException.class)
                    .extracting(e -> ((InvalidMessageException) e).argument())
                    .isEqualTo("messageId");
              });
    }
    assertThat(db.dsl().fetchCount(INBOX_MESSAGE)).isZero();
  }

  private boolean seenInTransaction(String consumer, String messageId) {
    return db.dsl().transactionResult(tx -> inbox.seen(tx.dsl(), consumer, messageId));
  }

  /** What {@code runOnce} of message m-1 for the consumer "billing" threw, with this work. */
  private Throwable billingRunOnceFailure(Consumer<DSLContext> work) {
    return catchThrowable(() -> inbox.runOnce(db.dsl(), "billing", "m-1", work));
  }
}
