package dev.jooqoutbox.relay;

import static dev.jooqoutbox.relay.RelayLeaseAndShutdownContract.counter;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.jooqoutbox.MessageStatus;
import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.testing.BulkMessages;
import dev.jooqoutbox.testing.ManualTimers;
import dev.jooqoutbox.testing.StoredMessages;
import dev.jooqoutbox.testing.TestDatabase;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The engine under load: no batch barrier (a hung handler holds only its own lane), the lease
 * heartbeat, the completer (every outcome written, also at close), housekeeping on its own thread,
 * and the asynchronous handler SPI with its in-flight bound.
 */
abstract class RelayEngineContract extends RelayContractSupport {

  RelayEngineContract(TestDatabase.Kind kind) {
    super(kind);
  }

  @Test
  void aHungHandlerDelaysNoOtherAggregate() {
    write("hung", "orders", Map.of("n", 0));
    List<String> others = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      others.add(write("agg-" + i, "orders", Map.of("n", i)));
    }
    CountDownLatch release = new CountDownLatch(1);
    Set<String> delivered = ConcurrentHashMap.newKeySet();
    OutboxRelay relay =
        closeLater(
            relay(Clock.systemUTC())
                .handlerConcurrency(2)
                .batchSize(10)
                .handler(
                    "orders",
                    m -> {
                      if (m.aggregate().equals("hung")) {
                        awaitIgnoringInterrupts(release);
                      }
                      delivered.add(m.id());
                    })
                .build());
    relay.start();

    // Every other aggregate is delivered while the first message's handler still hangs: nothing
    // waits for the hung one's batch to finish.
    await().atMost(Duration.ofSeconds(20)).until(() -> delivered.containsAll(others));
    assertThat(release.getCount()).isOne();
    release.countDown();
  }

  @Test
  void aHandlerRunningThreeLeasesIsDeliveredOnceAndHealthyNeighboursOnceNextToIt() {
    // Two relays, their heartbeats run when the test moves time (ManualTimers): without the
    // heartbeat the second relay would take the slow message over after one lease, and (with the
    // old batch barrier) the healthy ones too.
    ManualTimers timers = new ManualTimers(clock);
    Duration lease = Duration.ofSeconds(1);
    String slow = write("slow", "orders", Map.of("n", 0));
    List<String> healthy = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      healthy.add(write("agg-" + i, "orders", Map.of("n", i)));
    }
    Map<String, AtomicInteger> deliveries = new ConcurrentHashMap<>();
    CountDownLatch slowEntered = new CountDownLatch(1);
    CountDownLatch releaseSlow = new CountDownLatch(1);
    OutboxHandler handler =
        m -> {
          deliveries.computeIfAbsent(m.id(), id -> new AtomicInteger()).incrementAndGet();
          if (m.aggregate().equals("slow")) {
            slowEntered.countDown();
            awaitIgnoringInterrupts(releaseSlow);
          }
        };
    for (int r = 0; r < 2; r++) {
      closeLater(
              relay()
                  .timers(timers)
                  .lease(lease)
                  .handlerConcurrency(2)
                  .batchSize(8)
                  .handler("orders", handler)
                  .build())
          .start();
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> slowEntered.getCount() == 0);

    // Three leases pass while the slow handler runs; the relays go on with the healthy ones.
    timers.advance(lease.multipliedBy(3));
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> healthy.stream().allMatch(id -> deliveries.containsKey(id)));
    assertThat(leaseOf(slow)).isAfter(clock.instant());
    releaseSlow.countDown();
    await().atMost(Duration.ofSeconds(10)).until(() -> row(slow).isSent());

    assertThat(deliveries.get(slow)).hasValue(1);
    for (String id : healthy) {
      assertThat(deliveries.get(id)).as("deliveries of %s", id).hasValue(1);
    }
    assertThat(row(slow).getAttempts()).isOne();
  }

  @Test
  void aDeadRelaysLeaseStillRunsOut() {
    // A row, claimed by the repository itself (EventLogContract has the event log's crashes).
    String id = writeRow("a", "orders", Map.of("n", 1));
    // A relay that claimed and died: no heartbeat extends its lease.
    assertThat(repository.claim(Set.of("orders"), 10, Duration.ofSeconds(30), "dead", START))
        .hasSize(1);
    List<OutboxMessage> delivered = new CopyOnWriteArrayList<>();
    OutboxRelay relay = closeLater(relay().handler("orders", delivered::add).build());

    assertThat(relay.drainOnce(10)).isZero();
    clock.advance(Duration.ofSeconds(30));
    assertThat(relay.drainOnce(10)).isOne();
    assertThat(delivered).extracting(OutboxMessage::attempt).containsExactly(2);
    assertThat(row(id).isSent()).isTrue();
  }

  @Test
  void aLeaseASixthGoneIsExtendedToAFullOne() {
    // The beats come every sixth of the lease (200 ms here) when the test moves time
    // (ManualTimers). Before a sixth is gone no beat comes; at a sixth, the beat extends the lease
    // to a full one from then: a late beat still finds two thirds of the lease left.
    ManualTimers timers = new ManualTimers(clock);
    Duration lease = Duration.ofMillis(1200);
    String id = write("slow", "orders", Map.of("n", 1));
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    OutboxRelay relay =
        closeLater(
            relay()
                .timers(timers)
                .lease(lease)
                .handler(
                    "orders",
                    m -> {
                      entered.countDown();
                      awaitIgnoringInterrupts(release);
                    })
                .build());
    Instant started = clock.instant();
    relay.start();
    await().atMost(Duration.ofSeconds(10)).until(() -> entered.getCount() == 0);
    assertThat(leaseOf(id)).isEqualTo(started.plus(lease));

    timers.advance(Duration.ofMillis(150));
    assertThat(leaseOf(id)).as("before a sixth").isEqualTo(started.plus(lease));
    timers.advance(Duration.ofMillis(100));
    assertThat(leaseOf(id))
        .as("extended by the beat at a sixth, 200 ms")
        .isEqualTo(started.plus(Duration.ofMillis(200)).plus(lease));
    release.countDown();
    await().atMost(Duration.ofSeconds(10)).until(() -> row(id).isSent());
  }

  @Test
  void closeWritesEveryOutcomeAHandlerReachedAndGivesBackTheRest() {
    int aggregates = 40;
    for (int i = 0; i < 400; i++) {
      write("agg-" + (i % aggregates), "orders", Map.of("n", i));
    }
    Set<String> succeeded = ConcurrentHashMap.newKeySet();
    AtomicInteger calls = new AtomicInteger();
    OutboxRelay relay =
        closeLater(
            relay(Clock.systemUTC())
                .handlerConcurrency(4)
                .maxInFlight(100)
                .handler(
                    "orders",
                    m -> {
                      calls.incrementAndGet();
                      Thread.sleep(2);
                      succeeded.add(m.id());
                    })
                .build());
    relay.start();
    await().atMost(Duration.ofSeconds(20)).until(() -> calls.get() >= 100);
    relay.close();

    List<StoredMessages.Stored> all = stored().all();
    List<String> sent =
        all.stream()
            .filter(m -> m.status() == MessageStatus.SENT)
            .map(StoredMessages.Stored::id)
            .toList();
    // Every success reached before close() returned is written: none is lost in the completer.
    assertThat(sent).containsExactlyInAnyOrderElementsOf(succeeded);
    // Everything else is back to pending, unleased, its attempt given back.
    assertThat(all)
        .filteredOn(m -> m.status() != MessageStatus.SENT)
        .allSatisfy(
            m -> {
              assertThat(m.status()).isEqualTo(MessageStatus.PENDING);
              assertThat(m.state().leasedUntil()).isNull();
              assertThat(m.attempts()).isZero();
            });
    assertThat(sent.size()).isLessThan(400);
  }

  @Test
  void gaugesAndPurgeRunWhileTheRelayIsBusy() {
    for (int i = 0; i < 600; i++) {
      write("agg-" + (i % 20), "orders", Map.of("n", i));
    }
    OutboxRelay relay =
        closeLater(
            relay(Clock.systemUTC())
                .meterRegistry(registry)
                .gaugeInterval(Duration.ofMillis(200))
                .retention(Duration.ofMillis(1))
                .purgeInterval(Duration.ofMillis(100))
                .handlerConcurrency(2)
                .handler("orders", m -> Thread.sleep(5))
                .build());
    relay.start();

    // While the backlog drains, the gauge follows the table (never frozen at 0 or at its first
    // value), and sent rows are purged although the relay always has work. Each value the gauge
    // shows is a count the table had within the last 1.5 s (the gauge interval is 200 ms; the
    // margin is for a loaded machine), give or take what was in flight.
    List<Double> seen = new ArrayList<>();
    List<long[]> counts = new ArrayList<>(); // {nanoTime, pending}
    boolean purgedWhileBusy = false;
    long pending;
    while ((pending = stored().notSent()) > 100) {
      long now = System.nanoTime();
      counts.add(new long[] {now, pending});
      double gauge = registry.find("outbox.pending").gauge().value();
      long recentMax = pending;
      long recentMin = pending;
      for (long[] c : counts) {
        if (now - c[0] <= TimeUnit.MILLISECONDS.toNanos(1500)) {
          recentMax = Math.max(recentMax, c[1]);
          recentMin = Math.min(recentMin, c[1]);
        }
      }
      if (seen.isEmpty() || seen.get(seen.size() - 1) != gauge) {
        seen.add(gauge);
      }
      if (counts.size() > 30) { // past the first 1.5 s, when the gauge may not be set yet
        assertThat(gauge).isBetween((double) recentMin - 20, (double) recentMax + 20);
      }
      purgedWhileBusy |= stored().count() < 600;
      sleepMillis(50);
    }
    assertThat(seen).hasSizeGreaterThanOrEqualTo(3);
    if (!repository.appendsEvents()) {
      // PostgreSQL's event log drops whole partitions instead (EventRetentionTest).
      assertThat(purgedWhileBusy).as("purge ran during the drain").isTrue();
    }
  }

  @Test
  void asynchronousHandlersKeepManyInFlightInOrderPerAggregateAndWithinTheWindow() {
    int aggregates = 50;
    int perAggregate = 8;
    for (int n = 0; n < perAggregate; n++) {
      for (int a = 0; a < aggregates; a++) {
        write("agg-" + a, "orders", Map.of("n", n));
      }
    }
    ScheduledExecutorService broker = Executors.newScheduledThreadPool(2);
    AtomicInteger inFlight = new AtomicInteger();
    AtomicInteger maxInFlight = new AtomicInteger();
    Map<String, List<Integer>> order = new ConcurrentHashMap<>();
    AtomicInteger failedOnce = new AtomicInteger();
    try {
      OutboxRelay relay =
          closeLater(
              relay(Clock.systemUTC())
                  .maxInFlight(60)
                  .maxRun(4)
                  .backoff(Duration.ofMillis(10), Duration.ofMillis(10))
                  .asyncHandler(
                      "orders",
                      m -> {
                        maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                        CompletableFuture<Void> confirmed = new CompletableFuture<>();
                        broker.schedule(
                            () -> {
                              inFlight.decrementAndGet();
                              int n = m.payload().get("n").asInt();
                              // One failure in the middle of each of a few aggregates' runs.
                              if (n == 3 && m.attempt() == 1 && failedOnce.getAndIncrement() < 5) {
                                confirmed.completeExceptionally(new IllegalStateException("nack"));
                              } else {
                                order
                                    .computeIfAbsent(
                                        m.aggregate(), a -> new CopyOnWriteArrayList<>())
                                    .add(n);
                                confirmed.complete(null);
                              }
                            },
                            20,
                            TimeUnit.MILLISECONDS);
                        return confirmed;
                      })
                  .build());
      relay.start();

      await().atMost(Duration.ofSeconds(30)).until(() -> stored().notSent() == 0);
    } finally {
      broker.shutdownNow();
    }
    // Many in flight at once (a thread per message would have been one), never over the window.
    assertThat(maxInFlight.get()).isGreaterThan(10).isLessThanOrEqualTo(60);
    assertThat(order).hasSize(aggregates);
    order.values().forEach(ns -> assertThat(ns).containsExactly(0, 1, 2, 3, 4, 5, 6, 7));
  }

  @Test
  void anAsynchronousStageThatNeverCompletesFailsAfterTheMaximumHandlingTime() {
    String id = write("a", "orders", Map.of("n", 1));
    AtomicInteger calls = new AtomicInteger();
    OutboxRelay relay =
        closeLater(
            meteredRelay()
                .maxHandlingTime(Duration.ofMillis(300))
                .asyncHandler(
                    "orders",
                    m ->
                        calls.incrementAndGet() == 1
                            ? new CompletableFuture<>() // never completes
                            : CompletableFuture.completedFuture(null))
                .build());

    assertThat(relay.drainOnce(10)).isOne();
    assertThat(row(id).isSent()).isFalse();
    assertThat(row(id).getLastError()).contains("maximum handling time");
    assertThat(registry.find("outbox.relay.timeouts").counter().count()).isOne();
    clock.advance(Duration.ofMinutes(1));
    assertThat(relay.drainOnce(10)).isOne();
    assertThat(row(id).isSent()).isTrue();
    assertThat(counter(registry, "sent", "orders")).isOne();
  }

  static double gauge(SimpleMeterRegistry registry, String name) {
    Gauge gauge = registry.find(name).gauge();
    return gauge == null ? Double.NaN : gauge.value();
  }

  /**
   * Without {@code maxInFlight}, the window holds five batches (at least 500): with batch 200 the
   * relay keeps claiming until 1,000 messages are in flight, never more. A window of one batch made
   * the relay wait for a whole claim to settle before it claimed again.
   */
  @Test
  void theDefaultWindowHoldsFiveBatches() {
    int messages = 1_500;
    Instant now = Instant.now();
    BulkMessages.insert(
        dsl,
        messages,
        i -> new BulkMessages.Row(UUID.randomUUID().toString(), "agg-" + i, "orders", "{}", now));
    List<CompletableFuture<Void>> held = new CopyOnWriteArrayList<>();
    OutboxRelay relay =
        closeLater(
            relay(Clock.systemUTC())
                .batchSize(200)
                .asyncHandler(
                    "orders",
                    m -> {
                      CompletableFuture<Void> confirmed = new CompletableFuture<>();
                      held.add(confirmed);
                      return confirmed;
                    })
                .build());
    relay.start();

    await().atMost(Duration.ofSeconds(30)).until(() -> held.size() >= 1_000);
    sleepMillis(300); // room for a claim beyond the window, which must not come
    assertThat(held).hasSize(1_000);
    await() // confirm whatever is held, the later claims' messages too, until all are sent
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              held.forEach(f -> f.complete(null));
              return stored().notSent() == 0;
            });
    assertThat(held).hasSize(messages);
  }
}
