package dev.jooqoutbox.internal.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.relay.AsyncOutboxHandler;
import dev.jooqoutbox.relay.RetryPolicy;
import dev.jooqoutbox.testing.ModelRow;
import dev.jooqoutbox.testing.ReferenceStore;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The relay engine itself (its producer, lanes, completer, heartbeat and watchdog, on threads of
 * their own) on the model store, {@link ReferenceStore}, through the seam it uses on a database:
 * three relays deliver a backlog that writers add to while they run, with handlers that fail a
 * tenth of the time. Every message ends sent, and per aggregate the handler starts of the attempts
 * that delivered follow seq, each once. Not deterministic (real threads); the engine's code under a
 * seeded scheduler is {@link EngineSimulationTest}, the order core's model {@link
 * OrderSimulationTest}.
 */
class RelayEngineOnTheModelTest {

  private static final int AGGREGATES = 20;
  private static final int MESSAGES = 3_000;

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void threeRelaysOnTheModelDeliverEverythingInEachAggregatesOrder() {
    ReferenceStore store = new ReferenceStore(Clock.systemUTC());
    Map<String, List<Long>> delivered = new ConcurrentHashMap<>();
    SplittableRandom random = new SplittableRandom(7);
    for (int i = 0; i < MESSAGES / 2; i++) {
      store.write("agg-" + random.nextInt(AGGREGATES), "t", Duration.ZERO);
    }
    List<RelayEngine> relays = new ArrayList<>();
    for (int r = 0; r < 3; r++) {
      RelayEngine engine = new RelayEngine(config(failingATenth(delivered, r)), store);
      relays.add(engine);
      engine.start();
    }
    for (int i = MESSAGES / 2; i < MESSAGES; i++) {
      store.write("agg-" + random.nextInt(AGGREGATES), "t", Duration.ZERO);
    }
    await().atMost(Duration.ofSeconds(50)).until(() -> store.pendingCount() == 0);
    relays.forEach(RelayEngine::close);

    assertThat(store.rows()).allMatch(row -> row.sentAt() != null);
    Map<String, List<Long>> expected = new ConcurrentHashMap<>();
    for (ModelRow row : store.rows()) {
      expected.computeIfAbsent(row.aggregate(), a -> new ArrayList<>()).add(row.seq());
    }
    for (Map.Entry<String, List<Long>> e : expected.entrySet()) {
      List<Long> starts = delivered.get(e.getKey());
      assertThat(starts)
          .as("the delivering starts of %s (no lease runs out: none twice)", e.getKey())
          .isEqualTo(e.getValue());
    }
  }

  /**
   * A handler that records the seq of each attempt that delivers and fails one attempt in ten
   * before recording anything.
   */
  private static AsyncOutboxHandler failingATenth(Map<String, List<Long>> delivered, int relay) {
    SplittableRandom random = new SplittableRandom(relay);
    return new SyncHandler(
        message -> {
          boolean fails;
          synchronized (random) {
            fails = random.nextInt(10) == 0;
          }
          if (fails) {
            throw new IllegalStateException("a failure of the handler");
          }
          record(delivered, message);
        });
  }

  private static void record(Map<String, List<Long>> delivered, OutboxMessage message) {
    List<Long> starts = delivered.computeIfAbsent(message.aggregate(), a -> new ArrayList<>());
    synchronized (starts) {
      starts.add(message.seq());
    }
  }

  private static RelayConfig config(AsyncOutboxHandler handler) {
    return new RelayConfig(
            DSL.using(SQLDialect.SQLITE), // not used: the engine's store is the model
            Map.of("t", handler),
            new RelayConfig.Claiming(
                50,
                5,
                200,
                Duration.ofMillis(5),
                Duration.ofSeconds(30),
                false,
                () -> UUID.randomUUID().toString()),
            new RelayConfig.Handling(4, Duration.ofSeconds(10), Duration.ofSeconds(5)),
            new RelayConfig.Retries(
                new RetryPolicy(1_000, Duration.ofMillis(1), Duration.ofMillis(5)), Map.of()),
            new RelayConfig.Upkeep(Duration.ofHours(1), Duration.ofHours(1), Duration.ofSeconds(5)),
            new RelayConfig.Reconciling(Map.of(), Duration.ofSeconds(1), Duration.ofSeconds(10)),
            Clock.systemUTC(),
            new ObjectMapper(),
            null,
            null,
            null)
        .validate();
  }
}
