package dev.jooqoutbox.internal.wakeup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.jooqoutbox.Outbox;
import dev.jooqoutbox.testing.DatabaseFixture;
import dev.jooqoutbox.testing.StoredMessages;
import dev.jooqoutbox.testing.TestDatabase;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The in-process wake-up: a relay registered on a database is woken right after a transaction that
 * wrote messages on that database commits in this JVM, once per transaction, and never for a
 * rollback; which transactions have the after-commit hook this needs, and what the others do. Each
 * wake-up records how many messages another connection sees at that moment: all of the
 * transaction's, so it ran after the commit.
 */
abstract class WakeupContract extends DatabaseFixture {

  private TestDatabase other;

  /** The application's context, with the outbox's jOOQ listener. */
  private DSLContext app;

  private Outbox outbox;

  /** For each wake-up of the relay registered in a test: the messages visible at that moment. */
  private final List<Integer> wakeups = new CopyOnWriteArrayList<>();

  private final List<Wakeups.Registration> registrations = new ArrayList<>();

  WakeupContract(TestDatabase.Kind kind) {
    super(kind);
  }

  @BeforeAll
  void setUpOnce() {
    other = TestDatabase.empty(kind);
    app = DSL.using(db.dsl().configuration().deriveAppending(Outbox.transactionListener()));
    // notifyOnWrite's NOTIFY (PostgreSQL) is not what these tests look at: PostgresWakeupTest.
    outbox = Outbox.create(app);
  }

  @AfterAll
  void tearDownOnce() {
    other.close();
  }

  @BeforeEach
  void setUp() {
    wakeups.clear();
    registrations.add(Wakeups.register(db.dsl(), () -> wakeups.add(visibleMessages())));
  }

  @AfterEach
  void unregister() {
    registrations.forEach(Wakeups.Registration::close);
    registrations.clear();
  }

  @Test
  void aCommittedJooqTransactionWakesTheRelaysOfItsDatabaseOnceAfterItsCommit() {
    app.transaction(
        tx -> {
          for (int i = 0; i < 3; i++) {
            outbox.write(tx.dsl(), "a", "t", Map.of("n", i));
          }
          assertThat(wakeups).as("wake-ups before the commit").isEmpty();
        });

    assertThat(wakeups).containsExactly(3);
  }

  @Test
  void aRolledBackTransactionWakesNobody() {
    assertThatThrownBy(
            () ->
                app.transaction(
                    tx -> {
                      outbox.write(tx.dsl(), "a", "t", Map.of());
                      throw new IllegalStateException("business rule broken");
                    }))
        .hasMessageContaining("business rule broken");

    assertThat(wakeups).isEmpty();
    // The next committed write still wakes the relay.
    app.transaction(tx -> outbox.write(tx.dsl(), "a", "t", Map.of()));
    assertThat(wakeups).containsExactly(1);
  }

  @Test
  void aNestedTransactionCountsWhenItAndItsOuterTransactionCommit() {
    app.transaction(
        tx -> {
          outbox.write(tx.dsl(), "a", "t", Map.of());
          try {
            tx.dsl()
                .transaction(
                    nested -> {
                      outbox.write(nested.dsl(), "b", "t", Map.of());
                      throw new IllegalStateException("nested rolls back");
                    });
          } catch (IllegalStateException expected) {
            // the savepoint is rolled back, the outer transaction goes on
          }
          tx.dsl().transaction(nested -> outbox.write(nested.dsl(), "c", "t", Map.of()));
          assertThat(wakeups).as("wake-ups before the outer commit").isEmpty();
        });
    assertThat(wakeups).containsExactly(2);

    wakeups.clear();
    assertThatThrownBy(
            () ->
                app.transaction(
                    tx -> {
                      tx.dsl()
                          .transaction(nested -> outbox.write(nested.dsl(), "d", "t", Map.of()));
                      throw new IllegalStateException("outer rolls back");
                    }))
        .hasMessageContaining("outer rolls back");
    assertThat(wakeups).isEmpty();
  }

  @Test
  void relaysOfAnotherDatabaseAreNotWoken() {
    List<Integer> elsewhere = new CopyOnWriteArrayList<>();
    registrations.add(Wakeups.register(other.dsl(), () -> elsewhere.add(0)));

    app.transaction(tx -> outbox.write(tx.dsl(), "a", "t", Map.of()));

    assertThat(wakeups).containsExactly(1);
    assertThat(elsewhere).isEmpty();
  }

  @Test
  void aTransactionWithoutAnAfterCommitHookDoesNotWakeInProcess() throws Exception {
    // A plain JDBC transaction: nothing tells the outbox when it commits. It falls back to the
    // relays' poll (and on PostgreSQL to a NOTIFY inside the transaction: PostgresWakeupTest).
    try (Connection connection = db.dataSource().getConnection()) {
      connection.setAutoCommit(false);
      outbox.write(DSL.using(connection, db.dialect()), "a", "t", Map.of());
      connection.commit();
      connection.setAutoCommit(true);
    }
    // A jOOQ transaction whose configuration never met an outbox (lacks the listener): the same.
    DSLContext plain = DSL.using(db.dataSource(), db.dialect());
    plain.transaction(tx -> outbox.write(tx.dsl(), "b", "t", Map.of()));

    assertThat(wakeups).isEmpty();
    assertThat(visibleMessages()).isEqualTo(2);
  }

  @Test
  void theReadmesSetupGetsTheFastPathWithNothingToAdd() {
    // README: DSL.using(dataSource, dialect), an outbox built on it, writes in its transactions.
    DSLContext dsl = DSL.using(db.dataSource(), db.dialect());
    Outbox readme = Outbox.builder(dsl).build();
    Outbox.builder(dsl).build(); // a second outbox on it adds the listener no second time

    dsl.transaction(
        tx -> {
          readme.write(tx.dsl(), "a", "t", Map.of());
          assertThat(wakeups).as("wake-ups before the commit").isEmpty();
        });

    assertThat(wakeups).containsExactly(1);
    assertThat(JooqTransactions.carries(dsl.configuration())).isTrue();
    assertThat(dsl.configuration().transactionListenerProviders()).hasSize(1);
  }

  @Test
  void anOutboxWithNotificationsOffLeavesTheConfigurationAsItIs() {
    DSLContext dsl = DSL.using(db.dataSource(), db.dialect());
    Outbox.builder(dsl).notifyOnWrite(false).build();
    assertThat(dsl.configuration().transactionListenerProviders()).isEmpty();
  }

  @Test
  void anIntegrationsHookGivesItsTransactionsTheFastPath() throws Exception {
    // What the Spring integration does for transactions Spring manages, here for plain JDBC: a
    // hook that knows the transaction runs the action after its commit.
    AfterCommit.register(PlainJdbcTransaction.HOOK);
    try (Connection connection = db.dataSource().getConnection()) {
      PlainJdbcTransaction transaction = new PlainJdbcTransaction(connection, db.dialect());
      outbox.write(transaction.dsl(), "a", "t", Map.of());
      outbox.write(transaction.dsl(), "b", "t", Map.of());
      assertThat(wakeups).isEmpty();
      transaction.commit();
    }

    assertThat(wakeups).containsExactly(2);
  }

  private int visibleMessages() {
    // A connection of its own, outside the writer's transaction: it sees committed messages only.
    return StoredMessages.of(db.dsl()).count();
  }
}
