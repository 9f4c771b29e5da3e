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
import dev.jooqoutbox.testing.DatabaseFixture;
import dev.jooqoutbox.testing.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jooq.DSLContext;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The database drops the relays' connections in the middle of a drain, again and again, as a
 * restart or failover does. The server is shared with other test runs, so instead of restarting it
 * the test ends only this test's relay sessions, found by a mark each dialect can see (a PostgreSQL
 * application name, a MariaDB user of their own). The relays log, back off, reconnect and finish;
 * nothing is lost or booked twice; their worker threads still deliver a message written afterwards.
 *
 * <p>The copies the inbox dropped stay within the in-flight bound of docs/guarantees.md: a lost
 * connection is a crash in miniature. A write the relay could not make (an outcome, retried until
 * it succeeds, or a lease extension) may let the lease of what it holds run out meanwhile, so those
 * messages may come again (at most the in-flight window, {@link #WINDOW} messages, each time), and
 * a handler whose booking committed although its connection failed comes again once; nothing else
 * may repeat.
 */
abstract class ConnectionLossContract extends DatabaseFixture {

  private static final int MESSAGES = 3000;
  private static final int AGGREGATES = 60;
  private static final int RELAYS = 2;
  static final int WINDOW = 50;

  /** Long enough that a live relay does not lose a lease between two cuts on a starved machine. */
  private static final Duration LEASE = Duration.ofSeconds(5);

  private final List<HikariDataSource> pools = new ArrayList<>();

  ConnectionLossContract(TestDatabase.Kind kind) {
    super(kind);
  }

  /** A URL of this test's database whose sessions {@link #endRelaySessions} can find. */
  abstract String relayUrl();

  /** Ends every session opened through {@link #relayUrl}, and only those; returns how many. */
  abstract int endRelaySessions();

  @BeforeAll
  void setUpOnce() {
    Faults.quietLogs();
    Faults.createLedgerTables(db.dsl());
  }

  @AfterAll
  void tearDownOnce() {
    pools.forEach(HikariDataSource::close);
  }

  @Test
  void relaysReconnectAfterTheirSessionsAreEndedAndLoseNothing() {
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

    ListAppender<ILoggingEvent> log = Faults.capture(OutboxRelay.class);
    List<OutboxRelay> relays = new ArrayList<>();
    try {
      for (int r = 0; r < RELAYS; r++) {
        DSLContext relayDsl = relayContext("fault-relay-" + r);
        String process = "relay-" + r;
        Inbox inbox = new Inbox();
        OutboxRelay relay =
            OutboxRelay.builder(relayDsl)
                // The handler books on the relay's pool: its connections are cut too.
                .handler(Faults.BOOKING_TOPIC, m -> Faults.book(relayDsl, inbox, m, process))
                .lease(LEASE)
                .batchSize(WINDOW)
                .maxInFlight(WINDOW)
                .handlerConcurrency(2)
                .maxAttempts(1000) // a cut connection fails attempts; none may end dead
                .pollInterval(Duration.ofMillis(100))
                .backoff(Duration.ofMillis(50), Duration.ofMillis(500))
                .build();
        relays.add(relay);
        relay.start();
      }

      // Cut every session of the relays' pools, repeatedly, while the drain runs.
      int rounds = 0;
      int ended = 0;
      long firstPending = Faults.pending(dsl);
      while (rounds < 40 && Faults.pending(dsl) > 0 && (rounds < 10 || databaseErrors(log) == 0)) {
        Faults.sleep(150 + (rounds % 4) * 75);
        ended += endRelaySessions();
        rounds++;
      }
      long pendingAfterFaults = Faults.pending(dsl);
      System.out.printf(
          "%s connection loss: %d rounds, %d sessions ended, pending %d -> %d, %d database"
              + " errors logged by the relays%n",
          kind, rounds, ended, firstPending, pendingAfterFaults, databaseErrors(log));
      assertThat(ended).as("sessions ended").isPositive();
      assertThat(databaseErrors(log))
          .as("database errors the relays logged and survived")
          .isPositive();
      assertThat(Faults.messages(log))
          .anyMatch(m -> m.startsWith("outbox relay: database error, retrying in"));

      await("the drain after the faults")
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofMillis(200))
          .until(() -> Faults.pending(dsl) == 0);

      Faults.LedgerReport report = Faults.assertBookedExactlyOnceInOrder(dsl);
      assertThat(report.bookings()).isEqualTo(MESSAGES);
      assertThat(dsl.fetchCount(OUTBOX_MESSAGE, OUTBOX_MESSAGE.DEAD_AT.isNotNull())).isZero();
      long failedSettles = failedSettles(log);
      long failedAttempts = failedAttempts(log);
      long bound = failedSettles * WINDOW + failedAttempts;
      System.out.printf(
          "%s connection loss: all %d booked once, %d duplicates dropped by the inbox (bound: %d"
              + " failed settles or lease extensions x window %d + %d failed handler attempts ="
              + " %d)%n",
          kind, MESSAGES, report.duplicates(), failedSettles, WINDOW, failedAttempts, bound);
      assertThat((long) report.duplicates())
          .as("duplicates: at most one window per failed write, one message per failed attempt")
          .isLessThanOrEqualTo(bound);

      // The worker threads survived: a message written now is delivered.
      String after =
          dsl.transactionResult(
              tx -> outbox.write(tx.dsl(), "after-the-faults", Faults.BOOKING_TOPIC, "{}"));
      await("delivery after the faults")
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  dsl.fetchCount(Faults.BOOKING, Faults.MESSAGE_ID.eq(after)) == 1
                      && Faults.pending(dsl) == 0);
    } finally {
      relays.forEach(OutboxRelay::close);
      Faults.release(OutboxRelay.class, log);
    }
  }

  /** A pool on {@link #relayUrl}. */
  private DSLContext relayContext(String poolName) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(relayUrl());
    config.setPoolName(poolName);
    config.setMaximumPoolSize(5);
    config.setConnectionTimeout(10_000);
    HikariDataSource pool = new HikariDataSource(config);
    pools.add(pool);
    return DSL.using(pool, db.dialect(), new Settings().withExecuteLogging(false));
  }

  private static long databaseErrors(ListAppender<ILoggingEvent> log) {
    return Faults.messages(log).stream().filter(m -> m.contains("database error")).count();
  }

  /**
   * Writes of outcomes and lease extensions that failed (the relay retries them): while one is
   * retried, the lease of what the relay holds may run out. (A failed claim ran no handler.)
   */
  private static long failedSettles(ListAppender<ILoggingEvent> log) {
    return Faults.messages(log).stream()
        .filter(m -> m.contains("could not settle") || m.contains("could not extend the leases"))
        .count();
  }

  /** Handler attempts that failed (here: a booking whose connection was cut). */
  private static long failedAttempts(ListAppender<ILoggingEvent> log) {
    return Faults.messages(log).stream().filter(m -> m.contains("failed attempt")).count();
  }
}
