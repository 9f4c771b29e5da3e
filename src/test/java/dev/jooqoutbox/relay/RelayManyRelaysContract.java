package dev.jooqoutbox.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.jooqoutbox.testing.BulkMessages;
import dev.jooqoutbox.testing.TestDatabase;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Several relays share one table: every message is delivered exactly once (nothing crashes and no
 * lease runs out here, so nothing may repeat), and every aggregate's messages reach the handlers
 * one at a time, in {@code seq} order, whichever relay claims them.
 *
 * <p>Two relays with batches of 100 over 200 aggregates: together they can hold every aggregate's
 * head at once. Per-aggregate order makes this at least 100 claim-handle-settle rounds whatever the
 * number of relays; a third relay mostly adds claims that scan every pending row to find nothing
 * ready (see the report on the claim's cost on MariaDB).
 */
abstract class RelayManyRelaysContract extends RelayContractSupport {

  private static final int AGGREGATES = 200;
  private static final int PER_AGGREGATE = 100;
  private static final int MESSAGES = AGGREGATES * PER_AGGREGATE;
  private static final int RELAYS = 2;

  RelayManyRelaysContract(TestDatabase.Kind kind) {
    super(kind);
  }

  @Test
  void severalRelaysDeliverEveryMessageOnceInOrderPerAggregate() {
    Clock realTime = Clock.systemUTC();
    long writeStart = System.nanoTime();
    insertInterleaved(realTime.instant(), MESSAGES, 0);
    long writeMillis = (System.nanoTime() - writeStart) / 1_000_000;

    Map<String, List<Integer>> seenPerAggregate = new ConcurrentHashMap<>();
    Map<String, AtomicInteger> runningPerAggregate = new ConcurrentHashMap<>();
    AtomicInteger overlaps = new AtomicInteger();
    AtomicInteger delivered = new AtomicInteger();
    Map<Integer, AtomicInteger> perRelay = new ConcurrentHashMap<>();
    List<OutboxRelay> relays = new ArrayList<>();
    for (int r = 0; r < RELAYS; r++) {
      int relayNo = r;
      relays.add(
          closeLater(
              relay(realTime)
                  .pollInterval(Duration.ofMillis(10))
                  .batchSize(100)
                  .handlerConcurrency(4)
                  .handler(
                      "orders",
                      m -> {
                        AtomicInteger running =
                            runningPerAggregate.computeIfAbsent(
                                m.aggregate(), k -> new AtomicInteger());
                        if (running.incrementAndGet() != 1) {
                          overlaps.incrementAndGet();
                        }
                        try {
                          seenPerAggregate
                              .computeIfAbsent(m.aggregate(), k -> new CopyOnWriteArrayList<>())
                              .add(m.payload().get("n").asInt());
                          perRelay
                              .computeIfAbsent(relayNo, k -> new AtomicInteger())
                              .incrementAndGet();
                          delivered.incrementAndGet();
                        } finally {
                          running.decrementAndGet();
                        }
                      })
                  .build()));
    }

    long relayStart = System.nanoTime();
    relays.forEach(OutboxRelay::start);
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> delivered.get() >= MESSAGES && stored().notSent() == 0);
    long relayMillis = (System.nanoTime() - relayStart) / 1_000_000;
    relays.forEach(OutboxRelay::close);
    System.out.printf(
        "%s: inserted %d messages in %d ms; %d relays delivered them in %d ms (per relay %s)%n",
        getClass().getSimpleName(), MESSAGES, writeMillis, RELAYS, relayMillis, perRelay);

    assertThat(delivered.get()).as("handler calls").isEqualTo(MESSAGES);
    assertThat(perRelay).as("relays that delivered messages").hasSize(RELAYS);
    assertThat(overlaps.get()).as("handlers of one aggregate running at once").isZero();
    assertThat(seenPerAggregate).hasSize(AGGREGATES);
    List<Integer> expected = IntStream.range(0, PER_AGGREGATE).boxed().toList();
    seenPerAggregate.forEach(
        (aggregate, ns) -> assertThat(ns).as(aggregate).containsExactlyElementsOf(expected));
    assertThat(stored().maxAttempts()).as("no message needed a second attempt").isEqualTo(1);
  }

  /**
   * A relay joins and leaves again and again while another delivers and messages keep coming: each
   * join and each clean close moves work between them (on PostgreSQL the shards of the event log,
   * given back once nothing of theirs is out), and still no message is delivered twice or out of
   * its aggregate's order. Nothing crashes and no lease runs out here.
   */
  @Test
  void aRelayJoiningAndLeavingAgainAndAgainRepeatsNothing() {
    Clock realTime = Clock.systemUTC();
    int rounds = 12;
    int perRound = 1_000;
    int perAggregatePerRound = perRound / AGGREGATES;
    Map<String, AtomicInteger> deliveries = new ConcurrentHashMap<>();
    Map<String, List<Integer>> seenPerAggregate = new ConcurrentHashMap<>();
    OutboxRelayBuilder builder =
        relay(realTime)
            .pollInterval(Duration.ofMillis(10))
            .batchSize(50)
            .handlerConcurrency(2)
            .handler(
                "orders",
                m -> {
                  deliveries.computeIfAbsent(m.id(), k -> new AtomicInteger()).incrementAndGet();
                  seenPerAggregate
                      .computeIfAbsent(m.aggregate(), k -> new CopyOnWriteArrayList<>())
                      .add(m.payload().get("n").asInt());
                });
    OutboxRelay stays = closeLater(builder.build());
    stays.start();
    java.util.Random random = new java.util.Random(rounds);
    for (int round = 0; round < rounds; round++) {
      insertInterleaved(realTime.instant(), perRound, round * perAggregatePerRound);
      try (OutboxRelay visitor = builder.build()) {
        visitor.start();
        sleepMillis(150 + random.nextInt(400));
      }
    }
    int messages = rounds * perRound;
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> deliveries.size() >= messages && stored().notSent() == 0);
    stays.close();

    assertThat(deliveries).as("messages delivered").hasSize(messages);
    assertThat(deliveries.entrySet())
        .as("messages delivered more than once")
        .filteredOn(e -> e.getValue().get() != 1)
        .isEmpty();
    List<Integer> expected = IntStream.range(0, rounds * perAggregatePerRound).boxed().toList();
    seenPerAggregate.forEach(
        (aggregate, ns) -> assertThat(ns).as(aggregate).containsExactlyElementsOf(expected));
  }

  /**
   * Inserts the messages 1,000 rows per statement: {@code Outbox.write} has its own tests, and
   * 20,000 single-row writes would take most of this test's time. Interleaved, so {@code seq} order
   * is {@code n}-major and every aggregate has work from the start; a multi-row insert assigns
   * {@code seq} in row order on every dialect. Each aggregate's {@code n} counts on from {@code
   * firstN}.
   */
  private void insertInterleaved(Instant now, int count, int firstN) {
    BulkMessages.insert(
        dsl,
        count,
        i ->
            new BulkMessages.Row(
                UUID.randomUUID().toString(),
                "agg-" + (i % AGGREGATES),
                "orders",
                "{\"n\": " + (firstN + i / AGGREGATES) + "}",
                now));
  }
}
