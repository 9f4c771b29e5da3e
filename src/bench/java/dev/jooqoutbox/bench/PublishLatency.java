package dev.jooqoutbox.bench;

import dev.jooqoutbox.Outbox;
import dev.jooqoutbox.relay.AsyncOutboxHandler;
import dev.jooqoutbox.relay.OutboxRelay;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;

/**
 * Commit to broker acknowledgement, per broker: one writer writes at a steady rate (200 messages a
 * second) through a DSLContext carrying {@link Outbox#transactionListener()}, so a relay in this
 * JVM is woken right after each commit; the clock starts just before the commit (inside the
 * transaction, after {@code write} returned) and stops when the publisher's stage completes, that
 * is when the broker confirmed the message. The first second warms up and is not counted.
 */
final class PublishLatency {

  static final int RATE = 200;

  private PublishLatency() {}

  /** The latencies in milliseconds, one per message written after the first second. */
  static List<Double> measure(
      BenchDatabase db, DSLContext dsl, AsyncOutboxHandler publisher, double seconds)
      throws InterruptedException {
    db.truncate();
    DSLContext writer =
        DSL.using(dsl.configuration().deriveAppending(Outbox.transactionListener()));
    Outbox outbox = Outbox.builder(writer).notifyOnWrite(false).build();
    Map<String, Long> started = new ConcurrentHashMap<>();
    List<Double> latencies = new CopyOnWriteArrayList<>();
    Map<String, Boolean> counted = new ConcurrentHashMap<>();
    AsyncOutboxHandler timed =
        m ->
            publisher
                .handle(m)
                .thenRun(
                    () -> {
                      Long t0 = started.get(m.id());
                      if (t0 != null && counted.containsKey(m.id())) {
                        latencies.add((System.nanoTime() - t0) / 1e6);
                      }
                    });
    int total = (int) Math.round(RATE * (seconds + 1));
    try (OutboxRelay relay =
        OutboxRelay.builder(dsl)
            .asyncHandler(BenchDatabase.TOPIC, timed)
            .listen(false)
            .pollInterval(Duration.ofMillis(500))
            .build()) {
      relay.start();
      long begin = System.nanoTime();
      for (int i = 0; i < total; i++) {
        LockSupport.parkNanos(begin + i * 1_000_000_000L / RATE - System.nanoTime());
        boolean count = i >= RATE; // the first second warms up
        int n = i;
        writer.transaction(
            tx -> {
              String id =
                  outbox.write(tx.dsl(), "agg-" + (n % 100), BenchDatabase.TOPIC, Map.of("n", n));
              if (count) {
                counted.put(id, true);
              }
              started.put(id, System.nanoTime());
            });
      }
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (latencies.size() < counted.size() && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
    }
    return latencies;
  }
}
