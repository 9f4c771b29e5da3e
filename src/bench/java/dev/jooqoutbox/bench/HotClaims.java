package dev.jooqoutbox.bench;

import dev.jooqoutbox.relay.OutboxRelay;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.atomic.LongAdder;

/**
 * A diagnostic for docs/benchmarks-history.md (issue 13b), not a figure: one started relay with
 * batch 100 drains for 6 s a 100,000 backlog over 10 and over 1000 aggregates, twice each, and
 * prints its claims from its own Micrometer meters: how many, how long, how many came back empty,
 * and the mean size of the others. {@code java ... HotClaims <postgres url>}.
 */
public final class HotClaims {

  private HotClaims() {}

  public static void main(String[] a) throws Exception {
    try (BenchDatabase db = BenchDatabase.create(a[0])) {
      var pool = db.pool(6);
      for (int aggs : new int[] {10, 1000, 10, 1000}) {
        DrainBench.load(db, 100_000, aggs);
        SimpleMeterRegistry reg = new SimpleMeterRegistry();
        LongAdder handled = new LongAdder();
        long t0 = System.nanoTime();
        try (OutboxRelay relay =
            OutboxRelay.builder(db.dsl(pool))
                .handler(BenchDatabase.TOPIC, m -> handled.increment())
                .batchSize(100)
                .listen(false)
                .meterRegistry(reg)
                .build()) {
          relay.start();
          Thread.sleep(6000);
          double s = (System.nanoTime() - t0) / 1e9;
          var claims = reg.get("outbox.relay.claim").timer();
          var sizes = reg.get("outbox.relay.batch.size").summary();
          System.out.printf(
              "aggs %d: %d handled in %.1f s (%.0f msg/s); claims %d (mean %.2f ms), non-empty %d (mean size %.1f), empty %d%n",
              aggs,
              handled.sum(),
              s,
              handled.sum() / s,
              claims.count(),
              claims.mean(java.util.concurrent.TimeUnit.MILLISECONDS),
              sizes.count(),
              sizes.mean(),
              claims.count() - sizes.count());
        }
      }
    }
    System.exit(0);
  }
}
