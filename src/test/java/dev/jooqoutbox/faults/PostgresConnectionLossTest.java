package dev.jooqoutbox.faults;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.jooqoutbox.Inbox;
import dev.jooqoutbox.Outbox;
import dev.jooqoutbox.relay.OutboxRelay;
import dev.jooqoutbox.testing.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The database drops the relays' connections in the middle of a drain, again and again, as a
 * PostgreSQL restart or failover does. The server is shared with other test runs, so instead of
 * restarting it the test terminates only this test's relay backends ({@code pg_terminate_backend},
 * found by their {@code ApplicationName}). The relays log, back off, reconnect and finish; nothing
 * is lost or booked twice; their worker threads still deliver a message written afterwards.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresConnectionLossTest {

  private static final int MESSAGES = 3000;
  private static final int AGGREGATES = 60;
  private static final int RELAYS = 2;

  private TestDatabase db;
  private final List<HikariDataSource> pools = new ArrayList<>();

  @BeforeAll
  void createDatabase() {
    Faults.quietLogs();
    db = TestDatabase.migrated(TestDatabase.Kind.POSTGRES);
    Faults.createLedgerTables(db.dsl());
  }

  @AfterAll
  void dropDatabase() {
    pools.forEach(HikariDataSource::close);
    db.close();
  }

  @Test
  void relaysReconnectAfterTheirBackendsAreTerminatedAndLoseNothing() {
    DSLContext dsl = db.dsl();
    Outbox outbox = Outbox.builder(dsl).notifyOnWrite(false).build();
    for (int start = 0; start < MESSAGES; start += 500) {
      int from = start;
      dsl.transaction(
          tx -> {
            for (int n = from; n < from + 500; n++) {
              outbox.write(
                  tx.dsl(), "account-" + (n % AGGREGATES), Faults.BOOKING_TOPIC, Map.of("n", n));
            }
          });
    }

    String application = "fault-relay-" + UUID.randomUUID();
    ListAppender<ILoggingEvent> log = Faults.capture(OutboxRelay.class);
    List<OutboxRelay> relays = new ArrayList<>();
    try {
      for (int r = 0; r < RELAYS; r++) {
        DSLContext relayDsl = relayContext(application, "fault-relay-" + r);
        String process = "relay-" + r;
        Inbox inbox = new Inbox();
        OutboxRelay relay =
            OutboxRelay.builder(relayDsl)
                // The handler books on the relay's pool: its connections are cut too.
                .handler(Faults.BOOKING_TOPIC, m -> Faults.book(relayDsl, inbox, m, process))
                .lease(Duration.ofSeconds(2))
                .batchSize(50)
                .handlerConcurrency(2)
                .maxAttempts(1000) // a cut connection fails attempts; none may end dead
                .pollInterval(Duration.ofMillis(100))
                .backoff(Duration.ofMillis(50), Duration.ofMillis(500))
                .build();
        relays.add(relay);
        relay.start();
      }

      // Cut every backend of the relays' pools, repeatedly, while the drain runs.
      int rounds = 0;
      int terminated = 0;
      long firstPending = pending(dsl);
      while (rounds < 40 && pending(dsl) > 0 && (rounds < 10 || databaseErrors(log) == 0)) {
        sleep(150 + (rounds % 4) * 75);
        terminated += terminateBackends(dsl, application);
        rounds++;
      }
      long pendingAfterFaults = pending(dsl);
      System.out.printf(
          "connection loss: %d rounds, %d backends terminated, pending %d -> %d, %d database"
              + " errors logged by the relays%n",
          rounds, terminated, firstPending, pendingAfterFaults, databaseErrors(log));
      assertThat(terminated).as("backends terminated").isPositive();
      assertThat(databaseErrors(log))
          .as("database errors the relays logged and survived")
          .isPositive();
      assertThat(Faults.messages(log))
          .anyMatch(m -> m.startsWith("outbox relay: database error, retrying in"));

      await("the drain after the faults")
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofMillis(200))
          .until(() -> pending(dsl) == 0);

      Faults.LedgerReport report = Faults.assertBookedExactlyOnceInOrder(dsl);
      assertThat(report.bookings()).isEqualTo(MESSAGES);
      assertThat(dsl.fetchCount(OUTBOX_MESSAGE, OUTBOX_MESSAGE.DEAD_AT.isNotNull())).isZero();
      System.out.printf(
          "connection loss: all %d booked once, %d duplicates dropped by the inbox%n",
          MESSAGES, report.duplicates());

      // The worker threads survived: a message written now is delivered.
      String after =
          dsl.transactionResult(
              tx -> outbox.write(tx.dsl(), "after-the-faults", Faults.BOOKING_TOPIC, "{}"));
      await("delivery after the faults")
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  dsl.fetchCount(Faults.BOOKING, Faults.MESSAGE_ID.eq(after)) == 1
                      && pending(dsl) == 0);
    } finally {
      relays.forEach(OutboxRelay::close);
      Faults.release(OutboxRelay.class, log);
    }
  }

  /** A pool whose connections carry {@code application} as their PostgreSQL application_name. */
  private DSLContext relayContext(String application, String poolName) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(db.url() + "&ApplicationName=" + application);
    config.setPoolName(poolName);
    config.setMaximumPoolSize(5);
    config.setConnectionTimeout(10_000);
    HikariDataSource pool = new HikariDataSource(config);
    pools.add(pool);
    return DSL.using(pool, SQLDialect.POSTGRES, new Settings().withExecuteLogging(false));
  }

  /** Terminates the backends of {@code application}, and only those; returns how many. */
  private static int terminateBackends(DSLContext dsl, String application) {
    Object terminated =
        dsl.fetchValue(
            "select count(*) filter (where pg_terminate_backend(pid)) from pg_stat_activity"
                + " where application_name = ? and pid <> pg_backend_pid()",
            application);
    return ((Number) terminated).intValue();
  }

  private static long databaseErrors(ListAppender<ILoggingEvent> log) {
    return Faults.messages(log).stream().filter(m -> m.contains("database error")).count();
  }

  private static long pending(DSLContext dsl) {
    return dsl.fetchCount(
        OUTBOX_MESSAGE, OUTBOX_MESSAGE.SENT_AT.isNull().and(OUTBOX_MESSAGE.DEAD_AT.isNull()));
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }
}
