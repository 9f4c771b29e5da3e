package dev.jooqoutbox.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.testing.MessageRow;
import dev.jooqoutbox.testing.TestDatabase;
import io.micrometer.core.instrument.DistributionSummary;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Lanes: a claim takes a run of consecutive messages per aggregate, delivered strictly in seq order
 * on one lane; lanes of different aggregates run in parallel; a failure stops its lane and gives
 * the rest of the run back without using an attempt.
 */
abstract class RelayLaneContract extends RelayContractSupport {

  RelayLaneContract(TestDatabase.Kind kind) {
    super(kind);
  }

  @Test
  void aClaimTakesARunPerAggregateDeliveredInSeqOrder() {
    for (int n = 0; n < 10; n++) {
      write("a", "orders", Map.of("n", n));
    }
    List<Integer> seen = new CopyOnWriteArrayList<>();
    OutboxRelay relay =
        closeLater(
            meteredRelay()
                .maxRun(5)
                .handlerConcurrency(4)
                .handler("orders", m -> seen.add(m.payload().get("n").asInt()))
                .build());

    assertThat(relay.drainOnce(100)).isEqualTo(10);

    assertThat(seen).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
    DistributionSummary batches = registry.find("outbox.relay.batch.size").summary();
    // Two claims of a run of five each, not ten claims of one.
    assertThat(batches.count()).isEqualTo(2);
    assertThat(batches.max()).isEqualTo(5.0);
  }

  @Test
  void aFailureStopsTheLaneAndGivesTheRestBackWithoutUsingAnAttempt() {
    List<String> ids = new ArrayList<>();
    for (int n = 0; n < 5; n++) {
      ids.add(write("a", "orders", Map.of("n", n)));
    }
    List<String> calls = new CopyOnWriteArrayList<>();
    OutboxRelay relay =
        closeLater(
            relay()
                .maxRun(5)
                .backoff(Duration.ofSeconds(1), Duration.ofSeconds(1))
                .handler(
                    "orders",
                    m -> {
                      int n = m.payload().get("n").asInt();
                      calls.add(n + "#" + m.attempt());
                      if (n == 2 && m.attempt() == 1) {
                        throw new IllegalStateException("fails once");
                      }
                    })
                .build());

    assertThat(relay.drainOnce(100)).isEqualTo(3); // two sent, one retried; two given back
    assertThat(calls).containsExactly("0#1", "1#1", "2#1");
    assertThat(row(ids.get(0)).isSent()).isTrue();
    assertThat(row(ids.get(1)).isSent()).isTrue();
    MessageRow failed = row(ids.get(2));
    assertThat(failed.isSent()).isFalse();
    assertThat(failed.getAttempts()).isOne();
    assertThat(failed.getLastError()).contains("fails once");
    for (String rest : ids.subList(3, 5)) {
      MessageRow row = row(rest);
      assertThat(row.getAttempts()).as("given back without using an attempt").isZero();
      assertThat(row.getClaimToken()).isNull();
      assertThat(row.isSent()).isFalse();
    }

    // The failed message blocks its aggregate until its retry; then the lane resumes in order.
    assertThat(relay.drainOnce(100)).isZero();
    clock.advance(Duration.ofSeconds(2));
    assertThat(relay.drainOnce(100)).isEqualTo(3);
    assertThat(calls).containsExactly("0#1", "1#1", "2#1", "2#2", "3#1", "4#1");
  }

  @Test
  void lanesOfDifferentAggregatesRunInParallelButOneAggregateNeverTwiceAtOnce() throws Exception {
    for (int n = 0; n < 6; n++) {
      write("a", "orders", Map.of("n", n));
      write("b", "orders", Map.of("n", n));
    }
    CountDownLatch bothRunning = new CountDownLatch(2);
    Map<String, AtomicInteger> running = new ConcurrentHashMap<>();
    AtomicInteger overlapWithinAnAggregate = new AtomicInteger();
    Map<String, List<Integer>> order = new ConcurrentHashMap<>();
    OutboxRelay relay =
        closeLater(
            relay()
                .maxRun(6)
                .handlerConcurrency(4)
                .handler(
                    "orders",
                    m -> {
                      AtomicInteger mine =
                          running.computeIfAbsent(m.aggregate(), a -> new AtomicInteger());
                      if (mine.incrementAndGet() > 1) {
                        overlapWithinAnAggregate.incrementAndGet();
                      }
                      if (m.payload().get("n").asInt() == 0) {
                        // The first of each lane waits until the other lane runs too.
                        bothRunning.countDown();
                        assertThat(bothRunning.await(10, TimeUnit.SECONDS)).isTrue();
                      }
                      order
                          .computeIfAbsent(m.aggregate(), a -> new CopyOnWriteArrayList<>())
                          .add(m.payload().get("n").asInt());
                      Thread.sleep(2);
                      mine.decrementAndGet();
                    })
                .build());

    assertThat(relay.drainOnce(100)).isEqualTo(12);
    assertThat(overlapWithinAnAggregate).hasValue(0);
    assertThat(order.get("a")).containsExactly(0, 1, 2, 3, 4, 5);
    assertThat(order.get("b")).containsExactly(0, 1, 2, 3, 4, 5);
  }

  @Test
  void aFewHotAggregatesDrainInOrderWithFewClaims() {
    int aggregates = 10;
    int perAggregate = 30;
    writeHot(aggregates, perAggregate);
    Map<String, List<Integer>> order = new ConcurrentHashMap<>();
    OutboxRelay relay =
        closeLater(
            meteredRelay()
                .maxRun(10)
                .handlerConcurrency(4)
                .handler(
                    "orders",
                    (OutboxMessage m) ->
                        order
                            .computeIfAbsent(m.aggregate(), a -> new CopyOnWriteArrayList<>())
                            .add(m.payload().get("n").asInt()))
                .build());

    assertThat(relay.drainOnce(10_000)).isEqualTo(aggregates * perAggregate);
    assertEveryHotAggregateInOrder(order, aggregates, perAggregate);
    // Each claim carries up to ten messages of each hot aggregate, not one.
    assertThat(registry.find("outbox.relay.batch.size").summary().count()).isLessThan(10);
  }

  /**
   * A started relay on two busy aggregates: both are in flight, so a claim can find work again only
   * when one of their runs ends. The handler takes 20 ms, so the completer writes each run's ten
   * outcomes in about ten batches; a batch that ends no run must not wake the producer, as its
   * claim could only come back empty. Six runs end, so the relay needs at most seven claims (four
   * in runs of this test on each database; 25 to 40, nearly all empty, when every batch woke it).
   */
  @Test
  void aSettleThatEndsNoRunDoesNotWakeTheProducer() throws Exception {
    int aggregates = 2;
    int perAggregate = 30;
    writeHot(aggregates, perAggregate);
    Map<String, List<Integer>> order = new ConcurrentHashMap<>();
    CountDownLatch handled = new CountDownLatch(aggregates * perAggregate);
    OutboxRelay relay =
        closeLater(
            meteredRelay()
                .maxRun(10)
                .handlerConcurrency(4)
                .pollInterval(Duration.ofSeconds(30)) // only settles and commits wake the producer
                .handler(
                    "orders",
                    (OutboxMessage m) -> {
                      Thread.sleep(20);
                      order
                          .computeIfAbsent(m.aggregate(), a -> new CopyOnWriteArrayList<>())
                          .add(m.payload().get("n").asInt());
                      handled.countDown();
                    })
                .build());
    relay.start();

    assertThat(handled.await(60, TimeUnit.SECONDS)).isTrue();
    assertEveryHotAggregateInOrder(order, aggregates, perAggregate);
    long claims = registry.find("outbox.relay.claim").timer().count();
    long nonEmpty = registry.find("outbox.relay.batch.size").summary().count();
    // The first claim, one for each of the six runs that end, and a few spare: a claim can find a
    // run's successor before its predecessor's outcome is committed, and come back short.
    assertThat(claims).as("claims (%d of them empty)", claims - nonEmpty).isLessThanOrEqualTo(12);
  }

  /** {@code perAggregate} messages on each of the aggregates hot-0, hot-1, ..., interleaved. */
  private void writeHot(int aggregates, int perAggregate) {
    for (int n = 0; n < perAggregate; n++) {
      for (int a = 0; a < aggregates; a++) {
        write("hot-" + a, "orders", Map.of("n", n));
      }
    }
  }

  private static void assertEveryHotAggregateInOrder(
      Map<String, List<Integer>> order, int aggregates, int perAggregate) {
    for (int a = 0; a < aggregates; a++) {
      assertThat(order.get("hot-" + a)).hasSize(perAggregate).isSorted();
    }
  }
}
