package dev.jooqoutbox.relay;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
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
                        secondRunClaimedWhileTheFirstRan.set(
                            waitUntilLeased(ids.get(2 * MAX_RUN - 1)));
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
            relay()
                .maxRun(MAX_RUN)
                .handlerConcurrency(4)
                .backoff(Duration.ofSeconds(1), Duration.ofSeconds(1))
                .handler(
                    "orders",
                    m -> {
                      int n = m.payload().get("n").asInt();
                      calls.add(n + "#" + m.attempt());
                      if (n == 2 && m.attempt() == 1) {
                        secondRunClaimedBeforeTheFailure.set(
                            waitUntilLeased(ids.get(2 * MAX_RUN - 1)));
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
    for (int n = 0; n < perAggregate; n++) {
      for (int a = 0; a < aggregates; a++) {
        write("busy-" + a, "orders", Map.of("n", n));
      }
    }
    Map<String, List<Integer>> succeeded = new ConcurrentHashMap<>();
    OutboxHandler handler =
        m -> {
          int n = m.payload().get("n").asInt();
          Thread.sleep(ThreadLocalRandom.current().nextInt(3));
          if (n % 5 == 2 && m.attempt() == 1) {
            throw new IllegalStateException("fails once");
          }
          succeeded.computeIfAbsent(m.aggregate(), a -> new CopyOnWriteArrayList<>()).add(n);
        };
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
  private boolean waitUntilLeased(String id) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (System.nanoTime() < deadline) {
      if (row(id).getClaimToken() != null) {
        return true;
      }
      Thread.sleep(10);
    }
    return false;
  }

  private int sentCount() {
    return dsl.fetchCount(OUTBOX_MESSAGE, OUTBOX_MESSAGE.SENT_AT.isNotNull());
  }
}
