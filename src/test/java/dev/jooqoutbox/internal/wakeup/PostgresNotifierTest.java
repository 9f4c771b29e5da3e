package dev.jooqoutbox.internal.wakeup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.jooqoutbox.Outbox;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.ExecuteListener;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jooq.impl.DefaultExecuteListenerProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.postgresql.PGNotification;

/**
 * PostgreSQL: relays in other processes hear a committed write through one {@code NOTIFY} sent
 * after the commit from a connection of the outbox's own, coalesced over the commits of a few
 * milliseconds, never from the writer's transaction; a rolled-back write sends none; a write
 * without an after-commit hook falls back to a {@code NOTIFY} inside its transaction. Which backend
 * sent a notification is in the notification itself.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresNotifierTest {

  private static final Duration WAIT = Duration.ofSeconds(5);
  private static final Duration QUIET = Duration.ofMillis(300);

  private OwnPostgresDatabase db;

  /** Where the writers' transactions run. */
  private DataSource pool;

  private DSLContext app;

  /** Bound to a pool of its own, so that its notifier's backends are never a writer's. */
  private Outbox outbox;

  private Connection listener;

  @BeforeAll
  void createDatabase() throws Exception {
    db = new OwnPostgresDatabase();
    pool = db.pool("writers", 20);
    app =
        DSL.using(
            DSL.using(pool, SQLDialect.POSTGRES)
                .configuration()
                .deriveAppending(Outbox.transactionListener()));
    outbox = Outbox.create(DSL.using(db.pool("outbox", 2), SQLDialect.POSTGRES));
  }

  @AfterAll
  void dropDatabase() throws Exception {
    db.close();
  }

  @BeforeEach
  void listen() throws Exception {
    listener = db.listen();
  }

  @AfterEach
  void stopListening() throws Exception {
    listener.close();
  }

  @Test
  void aCommittedWriteIsNotifiedAfterItsCommitFromAnotherConnection() throws Exception {
    int writer =
        app.transactionResult(
            tx -> {
              outbox.write(tx.dsl(), "a", "t", Map.of());
              return backendPid(tx.dsl());
            });

    List<PGNotification> heard = OwnPostgresDatabase.notifications(listener, WAIT, true);

    assertThat(heard).hasSize(1);
    assertThat(heard.get(0).getName()).isEqualTo(Outbox.NOTIFY_CHANNEL);
    assertThat(heard.get(0).getPID()).as("the sender's backend").isNotEqualTo(writer);
  }

  @Test
  void aRolledBackWriteSendsNoNotification() throws Exception {
    assertThatThrownBy(
            () ->
                app.transaction(
                    tx -> {
                      outbox.write(tx.dsl(), "a", "t", Map.of());
                      throw new IllegalStateException("rolled back");
                    }))
        .hasMessageContaining("rolled back");
    assertThat(OwnPostgresDatabase.notifications(listener, QUIET, false)).isEmpty();

    // A committed write right behind it: one notification, not one for each.
    app.transaction(
        tx -> {
          assertThatThrownBy(
                  () ->
                      tx.dsl()
                          .transaction(
                              nested -> {
                                outbox.write(nested.dsl(), "b", "t", Map.of());
                                throw new IllegalStateException("nested rolled back");
                              }))
              .hasMessageContaining("nested rolled back");
        });
    app.transaction(tx -> outbox.write(tx.dsl(), "c", "t", Map.of()));
    List<PGNotification> heard = OwnPostgresDatabase.notifications(listener, WAIT, true);
    heard.addAll(OwnPostgresDatabase.notifications(listener, QUIET, false));
    assertThat(heard).hasSize(1);
  }

  @Test
  void commitsAreCoalescedIntoAtMostOneNotificationPerIntervalAndNoWriterSendsOne()
      throws Exception {
    int threads = 16;
    int commitsEach = 40;
    Set<Integer> writerBackends = ConcurrentHashMap.newKeySet();
    ExecutorService writers = Executors.newFixedThreadPool(threads);
    List<PGNotification> heard = new ArrayList<>();
    long start = System.nanoTime();
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        String aggregate = "writer-" + t;
        done.add(
            writers.submit(
                () -> {
                  for (int i = 0; i < commitsEach; i++) {
                    app.transaction(
                        tx -> {
                          outbox.write(tx.dsl(), aggregate, "t", Map.of());
                          writerBackends.add(backendPid(tx.dsl()));
                        });
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        while (!f.isDone()) {
          heard.addAll(OwnPostgresDatabase.notifications(listener, Duration.ofMillis(50), false));
        }
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      writers.shutdownNow();
    }
    long elapsed = System.nanoTime() - start;
    heard.addAll(OwnPostgresDatabase.notifications(listener, QUIET, false));

    int commits = threads * commitsEach;
    long intervals = elapsed / CoalescingNotifier.INTERVAL.toNanos() + 1;
    System.out.printf(
        "coalescing: %d commits by %d writers in %d ms, %d notifications (at most %d allowed)%n",
        commits, threads, elapsed / 1_000_000, heard.size(), intervals + 1);
    assertThat(heard).isNotEmpty();
    // One send at once, then at most one per interval; the last may leave after the writers end.
    assertThat((long) heard.size()).isLessThanOrEqualTo(intervals + 1);
    assertThat(heard)
        .extracting(PGNotification::getPID)
        .doesNotContainAnyElementsOf(writerBackends);
  }

  /**
   * README's setup exactly: {@code DSL.using(dataSource, SQLDialect.POSTGRES)}, an outbox built on
   * it, writes in its jOOQ transactions, nothing else. Building the outbox gave the context the
   * after-commit hook, so the writer's transaction runs no NOTIFY (its statements are recorded; the
   * notifier shares the pool, so the sender's backend can be the writer's after its commit), and
   * the notification still comes.
   */
  @Test
  void theReadmesSetupNotifiesAfterTheCommitNotFromTheWritersTransaction() throws Exception {
    DSLContext dsl = DSL.using(pool, SQLDialect.POSTGRES);
    Outbox readme = Outbox.builder(dsl).build();
    List<String> inTransaction = new CopyOnWriteArrayList<>();
    AtomicBoolean inside = new AtomicBoolean();
    dsl.configuration()
        .set(
            new DefaultExecuteListenerProvider(
                ExecuteListener.onExecuteStart(
                    ctx -> {
                      if (inside.get()) {
                        inTransaction.add(ctx.sql());
                      }
                    })));

    dsl.transaction(
        tx -> {
          inside.set(true);
          readme.write(tx.dsl(), "a", "t", Map.of());
          inside.set(false);
        });

    assertThat(inTransaction).as("the writer's statements").isNotEmpty();
    assertThat(inTransaction).noneMatch(sql -> sql.toLowerCase(Locale.ROOT).contains("notify"));
    List<PGNotification> heard = OwnPostgresDatabase.notifications(listener, WAIT, true);
    heard.addAll(OwnPostgresDatabase.notifications(listener, QUIET, false));
    assertThat(heard).hasSize(1);
  }

  @Test
  void aWriteWithoutAnAfterCommitHookFallsBackToANotifyInsideItsTransaction() throws Exception {
    int writer;
    try (Connection connection = pool.getConnection()) {
      connection.setAutoCommit(false);
      DSLContext tx = DSL.using(connection, SQLDialect.POSTGRES);
      outbox.write(tx, "a", "t", Map.of());
      writer = backendPid(tx);
      // PostgreSQL delivers it at commit only.
      assertThat(OwnPostgresDatabase.notifications(listener, QUIET, false)).isEmpty();
      connection.commit();
      connection.setAutoCommit(true);
    }

    List<PGNotification> heard = OwnPostgresDatabase.notifications(listener, WAIT, true);
    assertThat(heard).extracting(PGNotification::getPID).containsExactly(writer);
  }

  @Test
  void anOutboxBoundToOneConnectionFallsBackToo() throws Exception {
    int writer;
    try (Connection connection = pool.getConnection()) {
      DSLContext single =
          DSL.using(
              DSL.using(connection, SQLDialect.POSTGRES)
                  .configuration()
                  .deriveAppending(Outbox.transactionListener()));
      // Its notifier would share the connection with the writer's transaction: it has none.
      Outbox bound = Outbox.create(single);
      writer =
          single.transactionResult(
              tx -> {
                bound.write(tx.dsl(), "a", "t", Map.of());
                return backendPid(tx.dsl());
              });
    }

    List<PGNotification> heard = OwnPostgresDatabase.notifications(listener, WAIT, true);
    assertThat(heard).extracting(PGNotification::getPID).containsExactly(writer);
  }

  private static int backendPid(DSLContext tx) {
    return tx.select(DSL.function("pg_backend_pid", Integer.class)).fetchSingle().value1();
  }
}
