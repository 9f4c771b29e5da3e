package dev.jooqoutbox.relay;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.testing.ManualTimers;
import dev.jooqoutbox.testing.MessageRow;
import dev.jooqoutbox.testing.TestDatabase;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Ownership at the edges: a handler that outlives its lease loses the message to another relay and
 * cannot settle it late; a relay closed mid-batch gives the rest of the batch back without using
 * their attempts.
 */
abstract class RelayLeaseAndShutdownContract extends RelayContractSupport {

  RelayLeaseAndShutdownContract(TestDatabase.Kind kind) {
    super(kind);
  }

  /**
   * A started relay's threads (poll, handlers, completer, timers, on PostgreSQL the listener) are
   * daemons: they never keep a JVM alive whose main has returned (docs/getting-started.md).
   */
  @Test
  void everyThreadOfAStartedRelayIsADaemon() {
    CountDownLatch handled = new CountDownLatch(1);
    OutboxRelay relay =
        closeLater(
            relay(Clock.systemUTC())
                .listen(true)
                .handler("orders", m -> handled.countDown())
                .build());
    relay.start();
    write("order-1", "orders", Map.of("n", 1));
    await().atMost(Duration.ofSeconds(30)).until(() -> handled.getCount() == 0);
    List<Thread> outbox =
        Thread.getAllStackTraces().keySet().stream()
            .filter(t -> t.getName().startsWith("outbox-"))
            .toList();
    assertThat(outbox).as("the relay's threads").isNotEmpty();
    assertThat(outbox).as("daemon threads").allMatch(Thread::isDaemon);
  }

  @Test
  void handlerPastTheMaximumHandlingTimeFailsAndAnotherRelayTakesTheMessageOver() {
    // Time moved by hand: the slow relay's heartbeat and watchdog run when the test advances the
    // clock (ManualTimers). The heartbeat keeps the lease while the handler hangs, until the
    // maximum handling time interrupts it; it ignores the interrupt and returns much later.
    ManualTimers timers = new ManualTimers(clock);
    String id = write("order-1", "orders", Map.of("n", 1));
    long seq = row(id).getSeq();

    CountDownLatch slowEntered = new CountDownLatch(1);
    CountDownLatch releaseSlow = new CountDownLatch(1);
    AtomicBoolean slowReturned = new AtomicBoolean();
    List<Integer> slowAttempts = new CopyOnWriteArrayList<>();
    SimpleMeterRegistry slowMetrics = new SimpleMeterRegistry();
    AtomicInteger slowClaims = new AtomicInteger();
    OutboxRelay slow =
        closeLater(
            relay()
                .timers(timers)
                .lease(Duration.ofSeconds(2))
                .maxHandlingTime(Duration.ofSeconds(7))
                // Its own next claim finds the row backing off; then it sleeps through the test.
                .backoff(Duration.ofSeconds(1), Duration.ofSeconds(1))
                .pollInterval(Duration.ofSeconds(30))
                .claimTokens(() -> "slow-" + slowClaims.incrementAndGet())
                .meterRegistry(slowMetrics)
                .handler(
                    "orders",
                    m -> {
                      slowAttempts.add(m.attempt());
                      slowEntered.countDown();
                      awaitIgnoringInterrupts(releaseSlow);
                      slowReturned.set(true);
                    })
                .build());
    List<OutboxMessage> takenOver = new CopyOnWriteArrayList<>();
    OutboxRelay second = closeLater(relay().handler("orders", takenOver::add).build());

    slow.start();
    await().atMost(Duration.ofSeconds(10)).until(() -> slowEntered.getCount() == 0);
    second.start();
    assertThat(timers.names())
        .containsExactlyInAnyOrder("heartbeat", "watchdog", "paused-topics", "housekeeping");

    // Two leases and more later the message is still the slow relay's: the heartbeat extended its
    // lease (its row's, or on PostgreSQL's event log its shard's).
    timers.advance(Duration.ofMillis(4500));
    assertThat(takenOver).isEmpty();
    if (row(id).hasRow()) {
      assertThat(row(id).getClaimToken()).isEqualTo("slow-1");
    }
    assertThat(leaseOf(id)).isAfter(clock.instant());

    // At 7 s the watchdog times the attempt out: a failed attempt, due again after its backoff.
    timers.advance(Duration.ofMillis(2600));
    await().atMost(Duration.ofSeconds(10)).until(() -> row(id).getLastError() != null);
    assertThat(takenOver).isEmpty();
    clock.advance(Duration.ofSeconds(2));
    await().atMost(Duration.ofSeconds(10)).until(() -> row(id).isSent());
    assertThat(slowReturned).as("the slow handler is still running").isFalse();
    assertThat(counter(slowMetrics, "failed", "orders")).isOne();
    assertThat(slowMetrics.find("outbox.relay.timeouts").counter().count()).isOne();

    // The slow handler finally returns: its result must not settle anything.
    MessageRow sentBySecond = row(id);
    releaseSlow.countDown();
    await().atMost(Duration.ofSeconds(5)).untilTrue(slowReturned);
    assertThat(repository.markSent("slow-1", List.of(seq), clock.instant())).isZero();
    assertThat(repository.retryLater("slow-1", seq, "late", clock.instant())).isFalse();

    assertThat(slowAttempts).containsExactly(1);
    assertThat(takenOver).extracting(OutboxMessage::attempt).containsExactly(2);
    assertThat(counter(slowMetrics, "sent", "orders")).isZero();
    MessageRow row = row(id);
    assertThat(row.state().sentAt()).isEqualTo(sentBySecond.state().sentAt());
    assertThat(row.getAttempts()).isEqualTo(2);
    assertThat(row.getDeadAt()).isNull();
    assertThat(row.getClaimToken()).isNull();
    assertThat(row.getLastError()).isNull();
  }

  @Test
  void aLeaseExtensionWaitingOnALockDoesNotDelayTheTimeOutOfAHandler() throws Exception {
    // Real time. Another transaction holds a lock on the message in flight (on SQLite, the write
    // lock), so the heartbeat's extension waits on it; the handler must still be stopped at its
    // maximum handling time, not once the lock is gone (when the heartbeat and the watchdog shared
    // one thread, the watchdog waited behind the blocked beat: up to the lock or busy timeout).
    Clock realTime = Clock.systemUTC();
    String id = write("order-1", "orders", Map.of("n", 1));
    long seq = row(id).getSeq();
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch stopped = new CountDownLatch(1);
    OutboxRelay relay =
        closeLater(
            relay(realTime)
                // A beat every 0.5 s: the first one after the lock is taken waits on it.
                .lease(Duration.ofSeconds(3))
                .maxHandlingTime(Duration.ofSeconds(2))
                .pollInterval(Duration.ofSeconds(30))
                .handler(
                    "orders",
                    m -> {
                      entered.countDown();
                      try {
                        Thread.sleep(TimeUnit.MINUTES.toMillis(1));
                      } catch (InterruptedException e) {
                        stopped.countDown();
                      }
                    })
                .build());
    relay.start();
    assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();

    CountDownLatch locked = new CountDownLatch(1);
    CountDownLatch unlock = new CountDownLatch(1);
    Thread holder =
        new Thread(
            () ->
                dsl.transaction(
                    tx -> {
                      tx.dsl()
                          .update(OUTBOX_MESSAGE)
                          .set(OUTBOX_MESSAGE.ATTEMPTS, OUTBOX_MESSAGE.ATTEMPTS)
                          .where(OUTBOX_MESSAGE.SEQ.eq(seq))
                          .execute();
                      locked.countDown();
                      awaitIgnoringInterrupts(unlock);
                    }),
            "test-lock-holder");
    holder.start();
    try {
      assertThat(locked.await(10, TimeUnit.SECONDS)).isTrue();
      // The lock waits of the three databases are 30 s and more; the time-out is due at 2 s.
      assertThat(stopped.await(15, TimeUnit.SECONDS))
          .as("the handler was stopped while the heartbeat waited on the lock")
          .isTrue();
    } finally {
      unlock.countDown();
      holder.join(TimeUnit.SECONDS.toMillis(30));
    }

    // Once the lock is gone, the time-out is settled as a failed attempt.
    await().atMost(Duration.ofSeconds(20)).until(() -> row(id).getLastError() != null);
    MessageRow row = row(id);
    assertThat(row.getAttempts()).isOne();
    assertThat(row.isSent()).isFalse();
  }

  @Test
  void successAfterTheLeaseRanOutOnTheClockIsCountedAndMarkedWhileNoOtherRelayTookIt() {
    String id = write("order-1", "orders", Map.of("n", 1));
    List<Integer> attempts = new CopyOnWriteArrayList<>();
    OutboxRelay relay =
        closeLater(
            meteredRelay()
                .lease(Duration.ofSeconds(30))
                .handler(
                    "orders",
                    m -> {
                      attempts.add(m.attempt());
                      clock.advance(Duration.ofSeconds(31)); // "took" longer than the lease
                    })
                .build());

    assertThat(relay.drainOnce(100)).isEqualTo(1);

    // No heartbeat ran in between on this clock, so the lease ran out; nobody claimed it since,
    // so marking it avoids a second delivery. It is counted, not silently marked.
    assertThat(row(id).isSent()).isTrue();
    assertThat(attempts).containsExactly(1);
    assertThat(registry.find("outbox.relay.late").counter().count()).isOne();
    assertThat(counter(registry, "sent", "orders")).isOne();
  }

  @Test
  void closeMidBatchReleasesTheRestForAnotherRelayWithoutUsingAnAttempt() throws Exception {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      ids.add(write("order-" + i, "orders", Map.of("n", i)));
    }
    CountDownLatch firstEntered = new CountDownLatch(1);
    CountDownLatch releaseFirst = new CountDownLatch(1);
    List<OutboxMessage> handledByFirst = new CopyOnWriteArrayList<>();
    OutboxRelay first =
        closeLater(
            relay()
                .handlerConcurrency(1)
                .batchSize(10)
                .handler(
                    "orders",
                    m -> {
                      handledByFirst.add(m);
                      if (firstEntered.getCount() > 0) {
                        firstEntered.countDown();
                        assertThat(releaseFirst.await(10, TimeUnit.SECONDS)).isTrue();
                      }
                    })
                .build());
    first.start();
    await().atMost(Duration.ofSeconds(10)).until(() -> firstEntered.getCount() == 0);

    Thread closer = new Thread(first::close, "test-closer");
    closer.start();
    // close() has asked the worker to stop and now waits for it.
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> closer.getState() == Thread.State.TIMED_WAITING);
    releaseFirst.countDown();
    closer.join(TimeUnit.SECONDS.toMillis(10));
    assertThat(closer.isAlive()).as("close() returned").isFalse();

    assertThat(handledByFirst).extracting(OutboxMessage::id).containsExactly(ids.get(0));
    assertThat(row(ids.get(0)).isSent()).isTrue();
    for (String rest : ids.subList(1, 5)) {
      MessageRow row = row(rest);
      assertThat(row.isSent()).isFalse();
      assertThat(row.getClaimToken()).isNull();
      assertThat(row.getLockedUntil()).isNull();
      assertThat(row.getAttempts()).as("the released claim gave its attempt back").isZero();
    }

    List<OutboxMessage> handledBySecond = new CopyOnWriteArrayList<>();
    OutboxRelay second = closeLater(relay().handler("orders", handledBySecond::add).build());
    assertThat(second.drainOnce(100)).isEqualTo(4);
    assertThat(handledBySecond)
        .extracting(OutboxMessage::id)
        .containsExactlyElementsOf(ids.subList(1, 5));
    assertThat(handledBySecond).extracting(OutboxMessage::attempt).containsOnly(1);
    assertThat(stored().notSent()).isZero();
  }

  static double counter(SimpleMeterRegistry registry, String result, String topic) {
    Counter counter =
        registry.find("outbox.relay.messages").tag("result", result).tag("topic", topic).counter();
    return counter == null ? 0 : counter.count();
  }
}
