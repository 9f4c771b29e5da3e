package dev.jooqoutbox.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.jooqoutbox.Outbox;
import dev.jooqoutbox.testing.ManualTimers;
import dev.jooqoutbox.testing.TestDatabase;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import org.jooq.DSLContext;
import org.jooq.ExecuteContext;
import org.jooq.ExecuteListener;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The relay's own waits are measured on its {@link dev.jooqoutbox.internal.relay.RelayTimers}: with
 * {@link ManualTimers} the producer's poll, its backoff after a database error and the completer's
 * backoff after a failed write end when the test moves time past them, not before, and not on the
 * wall clock.
 */
abstract class RelayWaitsContract extends RelayContractSupport {

  // Longer than any wait of the test on the wall clock, so that only moving time can end it, and
  // shorter than the 30 s the backoff after an error is capped at, so that the first is one poll.
  private static final Duration POLL = Duration.ofSeconds(20);
  private static final Duration ALMOST = POLL.minusMillis(1);

  private ManualTimers timers;

  /** Written without waking any relay: as a writer in another process with no NOTIFY. */
  private Outbox silent;

  private final AtomicBoolean failing = new AtomicBoolean();

  RelayWaitsContract(TestDatabase.Kind kind) {
    super(kind);
  }

  @BeforeEach
  void setUpTimers() {
    timers = new ManualTimers(clock);
    silent = Outbox.builder(dsl).clock(clock).notifyOnWrite(false).build();
  }

  @Test
  void thePollFindsAMessageNoWriterAnnouncedOnlyOnceTimeMovesPastIt() {
    closeLater(relayOn(dsl).build()).start();
    await().atMost(Duration.ofSeconds(10)).until(() -> timers.waiting() == 1);
    String id = write(silent, "a", "orders", Map.of("n", 1));

    timers.advance(ALMOST);
    assertThat(timers.waiting()).as("the producer still waits").isOne();
    assertThat(row(id).getClaimToken()).isNull();

    timers.advance(Duration.ofMillis(1));
    await().atMost(Duration.ofSeconds(10)).until(() -> row(id).isSent());
  }

  @Test
  void aClaimThatFailsIsTriedAgainAfterItsBackoffOnTheRelaysTime() {
    String id = write(silent, "a", "orders", Map.of("n", 1));
    failing.set(true);
    closeLater(relayOn(failingOn(t -> t.startsWith("outbox-relay-"))).build()).start();
    // The first claim failed: the producer backs off one poll interval.
    await().atMost(Duration.ofSeconds(10)).until(() -> timers.waiting() == 1);
    failing.set(false);

    timers.advance(ALMOST);
    assertThat(timers.waiting()).as("still backing off").isOne();
    assertThat(row(id).getClaimToken()).isNull();

    timers.advance(Duration.ofMillis(1));
    await().atMost(Duration.ofSeconds(10)).until(() -> row(id).isSent());
  }

  @Test
  void anOutcomeWhoseWriteFailedIsWrittenAfterTheCompletersBackoffOnTheRelaysTime() {
    String id = write(silent, "a", "orders", Map.of("n", 1));
    failing.set(true);
    // Refused for good: an outcome the completer writes on every database (a delivery writes
    // nothing on PostgreSQL's event log, where the completer only counts it).
    closeLater(
            relay(failingOn(t -> t.startsWith("outbox-completer-")), clock)
                .timers(timers)
                .pollInterval(POLL)
                .handler(
                    "orders",
                    m -> {
                      throw new PermanentFailureException("refused");
                    })
                .build())
        .start();
    // The producer polls, the completer backs off after its failed write: two waits.
    await().atMost(Duration.ofSeconds(10)).until(() -> timers.waiting() == 2);
    failing.set(false);

    timers.advance(ALMOST);
    assertThat(timers.waiting()).as("both still wait").isEqualTo(2);
    assertThat(row(id).getDeadAt()).isNull();

    timers.advance(Duration.ofMillis(1));
    await().atMost(Duration.ofSeconds(10)).until(() -> row(id).getDeadAt() != null);
    assertThat(row(id).getAttempts()).as("delivered once, its outcome written late").isOne();
  }

  private OutboxRelayBuilder relayOn(DSLContext on) {
    return relay(on, clock).timers(timers).pollInterval(POLL).handler("orders", m -> {});
  }

  /** The test database, whose statements fail on the threads {@code on} names while failing. */
  private DSLContext failingOn(Predicate<String> on) {
    ExecuteListener fail =
        new ExecuteListener() {
          @Override
          public void executeStart(ExecuteContext ctx) {
            if (failing.get() && on.test(Thread.currentThread().getName())) {
              throw new IllegalStateException("the database is away (test)");
            }
          }
        };
    return dsl.configuration().derive(fail).dsl();
  }
}
