package dev.jooqoutbox.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.jooqoutbox.testing.TestDatabase;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import org.jooq.DSLContext;
import org.jooq.ExecuteContext;
import org.jooq.ExecuteListener;
import org.jooq.impl.DefaultExecuteListenerProvider;
import org.junit.jupiter.api.Test;

/**
 * A busy aggregate's next run is claimed while its current run is still in flight (right behind
 * this relay's own leased rows), so one aggregate can keep more than a run in flight; it is
 * delivered only after the run before it, and given back, without using its attempts, when that run
 * stops at a failure.
 */
abstract class RelayNextRunContract extends RelayContractSupport {

  private static final int MESSAGES = 20;
  private static final int MAX_RUN = 5;

  RelayNextRunContract(TestDatabase.Kind kind) {
    super(kind);
  }

  @Test
  void aBusyAggregatesNextRunIsClaimedWhileItsFirstRunIsInFlightAndDeliveredAfterIt() {
    List<String> ids = writeAll();
    List<Integer> seen = new CopyOnWriteArrayList<>();
    AtomicBoolean secondRunClaimedWhileTheFirstRan = new AtomicBoolean();
    OutboxRelay relay =
        closeLater(
            meteredRelay()
                .maxRun(MAX_RUN)
                .handlerConcurrency(4)
                .handler(
                    "orders",
                    m -> {
                      int n = m.payload().get("n").asInt();
                      if (n == 0) {
                        // The second run is claimed before the first run's first message is done.
                        secondRunClaimedWhileTheFirstRan.set(waitUntilInFlight(2 * MAX_RUN));
                      }
                      seen.add(n);
                    })
                .build());
    relay.start();

    await().atMost(Duration.ofSeconds(30)).until(() -> seen.size() == MESSAGES);
    assertThat(secondRunClaimedWhileTheFirstRan).isTrue();
    assertThat(seen).containsExactlyElementsOf(numbers());
    assertThat(registry.find("outbox.relay.batch.size").summary().max()).isEqualTo(MAX_RUN);
    await().atMost(Duration.ofSeconds(10)).until(() -> sentCount() == MESSAGES);
  }

  @Test
  void runsClaimedBehindARunThatFailsAreGivenBackAndDeliveredAfterTheRetry() {
    List<String> ids = writeAll();
    List<String> calls = new CopyOnWriteArrayList<>();
    AtomicBoolean secondRunClaimedBeforeTheFailure = new AtomicBoolean();
    OutboxRelay relay =
        closeLater(
            meteredRelay()
                .maxRun(MAX_RUN)
                .handlerConcurrency(4)
                .backoff(Duration.ofSeconds(1), Duration.ofSeconds(1))
                .handler(
                    "orders",
                    m -> {
                      int n = m.payload().get("n").asInt();
                      calls.add(n + "#" + m.attempt());
                      if (n == 2 && m.attempt() == 1) {
                        // The first run's rest (0 and 1 may be settled by now) and the second.
                        secondRunClaimedBeforeTheFailure.set(waitUntilInFlight(2 * MAX_RUN - 2));
                        throw new IllegalStateException("fails once");
                      }
                    })
                .build());
    relay.start();

    // The failed message backs off; everything behind it is given back, its attempts unused.
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                row(ids.get(2)).getLastError() != null
                    && ids.subList(3, MESSAGES).stream()
                        .allMatch(id -> row(id).getClaimToken() == null));
    assertThat(secondRunClaimedBeforeTheFailure).isTrue();
    for (String id : ids.subList(3, MESSAGES)) {
      assertThat(row(id).getAttempts()).as("attempts of %s", id).isZero();
    }
    assertThat(calls).containsExactly("0#1", "1#1", "2#1");

    clock.advance(Duration.ofSeconds(2));
    await().atMost(Duration.ofSeconds(30)).until(() -> sentCount() == MESSAGES);
    List<String> expected = new ArrayList<>(List.of("0#1", "1#1", "2#1", "2#2"));
    for (int n = 3; n < MESSAGES; n++) {
      expected.add(n + "#1");
    }
    assertThat(calls).containsExactlyElementsOf(expected);
  }

  /**
   * Under load: two relays on the system clock drain 10 busy aggregates (60 messages each) while
   * every fifth message fails its first attempt and handlers take up to 2 ms, so runs are claimed
   * behind runs that then fail, on both relays at once. Every message succeeds exactly once, and
   * each aggregate's successes come in seq order.
   */
  @Test
  void twoRelaysOnBusyAggregatesWithFailuresKeepEachAggregatesOrder() {
    int aggregates = 10;
    int perAggregate = 60;
    writeBusy(aggregates, perAggregate);
    Map<String, List<Integer>> succeeded = new ConcurrentHashMap<>();
    OutboxHandler handler = failingEachFirstAttempt(5, 3, succeeded);
    for (int r = 0; r < 2; r++) {
      closeLater(
              relay(Clock.systemUTC())
                  .maxRun(MAX_RUN)
                  .handlerConcurrency(4)
                  .backoff(Duration.ofMillis(20), Duration.ofMillis(40))
                  .handler("orders", handler)
                  .build())
          .start();
    }

    await().atMost(Duration.ofSeconds(60)).until(() -> sentCount() == aggregates * perAggregate);
    assertEachBusyAggregateInOrder(succeeded, aggregates, perAggregate);
  }

  /**
   * The settles are slow to reach the relay: each statement of its completer commits, then holds
   * the completer's thread 20 ms before the relay learns that it is written. Meanwhile the producer
   * keeps claiming (ten busy aggregates), so it claims again what a lane stopped at a failure gave
   * back (the failed message after its 1 ms backoff, the rest of the run, the runs claimed behind
   * it) before that give-back is settled in flight: such a run, at the head of its aggregate, is
   * delivered, not given back behind the lane that gave it back, which repeated for as long as each
   * claim of the aggregate came before the last give-back was settled (a claim-and-release loop
   * that delivered nothing more of the aggregate; with one relay nobody else takes the aggregate
   * over). Every message succeeds once, in seq order.
   */
  @Test
  void aRunClaimedAgainBeforeItsGiveBackIsSettledInFlightIsDelivered() {
    drainTenBusyAggregatesWithSlowSettles(1);
  }

  /**
   * As {@link #aRunClaimedAgainBeforeItsGiveBackIsSettledInFlightIsDelivered}, with two relays
   * whose settles are slow: each aggregate's successes still come once each, in seq order.
   */
  @Test
  void twoRelaysWithSlowSettlesKeepEachAggregatesOrder() {
    drainTenBusyAggregatesWithSlowSettles(2);
  }

  private void drainTenBusyAggregatesWithSlowSettles(int relays) {
    int aggregates = 10;
    int perAggregate = 20;
    writeBusy(aggregates, perAggregate);
    DSLContext slowSettles =
        dsl.configuration().derive(new DefaultExecuteListenerProvider(new SlowCompleter(20))).dsl();
    Map<String, List<Integer>> succeeded = new ConcurrentHashMap<>();
    OutboxHandler handler = failingEachFirstAttempt(7, 0, succeeded);
    for (int r = 0; r < relays; r++) {
      closeLater(
              relay(slowSettles, Clock.systemUTC())
                  .maxRun(MAX_RUN)
                  .handlerConcurrency(4)
                  .backoff(Duration.ofMillis(1), Duration.ofMillis(1))
                  .handler("orders", handler)
                  .build())
          .start();
    }

    await().atMost(Duration.ofSeconds(60)).until(() -> sentCount() == aggregates * perAggregate);
    assertEachBusyAggregateInOrder(succeeded, aggregates, perAggregate);
  }

  /** Holds the relay's completer thread {@code millis} after each statement it ran (committed). */
  private record SlowCompleter(long millis) implements ExecuteListener {
    @Override
    public void end(ExecuteContext ctx) {
      if (Thread.currentThread().getName().startsWith("outbox-completer-")) {
        try {
          Thread.sleep(millis);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }

  private void writeBusy(int aggregates, int perAggregate) {
    for (int n = 0; n < perAggregate; n++) {
      for (int a = 0; a < aggregates; a++) {
        write("busy-" + a, "orders", Map.of("n", n));
      }
    }
  }

  /**
   * A handler taking up to {@code maxSleepMillis - 1} ms whose message number {@code n} fails its
   * first attempt when {@code n % every == 2}; it records each success per aggregate.
   */
  private static OutboxHandler failingEachFirstAttempt(
      int every, int maxSleepMillis, Map<String, List<Integer>> succeeded) {
    return m -> {
      int n = m.payload().get("n").asInt();
      if (maxSleepMillis > 0) {
        Thread.sleep(ThreadLocalRandom.current().nextInt(maxSleepMillis));
      }
      if (n % every == 2 && m.attempt() == 1) {
        throw new IllegalStateException("fails once");
      }
      succeeded.computeIfAbsent(m.aggregate(), a -> new CopyOnWriteArrayList<>()).add(n);
    };
  }

  private static void assertEachBusyAggregateInOrder(
      Map<String, List<Integer>> succeeded, int aggregates, int perAggregate) {
    List<Integer> inOrder = IntStream.range(0, perAggregate).boxed().toList();
    for (int a = 0; a < aggregates; a++) {
      assertThat(succeeded.get("busy-" + a)).as("busy-%d", a).containsExactlyElementsOf(inOrder);
    }
  }

  private List<String> writeAll() {
    List<String> ids = new ArrayList<>();
    for (int n = 0; n < MESSAGES; n++) {
      ids.add(write("a", "orders", Map.of("n", n)));
    }
    return ids;
  }

  private static List<Integer> numbers() {
    List<Integer> numbers = new ArrayList<>();
    for (int n = 0; n < MESSAGES; n++) {
      numbers.add(n);
    }
    return numbers;
  }

  /** Waits up to 10 s for message {@code id} to be leased; returns whether it was. */
  /**
   * Waits until the relay holds {@code messages} in flight, its next run claimed while the first
   * one runs (the in-flight gauge: a message of PostgreSQL's event log has no lease of its own).
   */
  private boolean waitUntilInFlight(int messages) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (System.nanoTime() < deadline) {
      var inFlight = registry.find("outbox.relay.in.flight").gauge();
      if (inFlight != null && inFlight.value() >= messages) {
        return true;
      }
      Thread.sleep(10);
    }
    return false;
  }

  private int sentCount() {
    return stored().sent();
  }
}
