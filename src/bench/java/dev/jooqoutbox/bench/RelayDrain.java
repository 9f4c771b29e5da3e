package dev.jooqoutbox.bench;

import dev.jooqoutbox.relay.OutboxRelay;
import dev.jooqoutbox.relay.OutboxRelayBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.jooq.DSLContext;

/**
 * A drain of figure 2 by started relays: each runs its own producer, lanes and completer, as in
 * production, and the figure is the handler completions per second until the backlog is done or the
 * time box ends. With {@code hung}, the handler of {@link DrainBench#HUNG_AGGREGATE} sleeps until
 * the relay interrupts it at its maximum handling time, and only the other aggregates' messages
 * count.
 */
final class RelayDrain {

  private RelayDrain() {}

  static DrainBench.Result run(
      BenchDatabase db, DSLContext dsl, int relays, int batch, boolean hung, long timeBoxMillis) {
    long target = db.pendingCount();
    if (hung) {
      target -=
          db.queryLong(
              "SELECT COUNT(*) FROM outbox_message WHERE sent_at IS NULL AND dead_at IS NULL"
                  + " AND aggregate = '"
                  + DrainBench.HUNG_AGGREGATE
                  + "'");
    }
    LongAdder handled = new LongAdder();
    List<OutboxRelay> started = new ArrayList<>();
    long start = System.nanoTime();
    long end;
    long n;
    try {
      for (int i = 0; i < relays; i++) {
        OutboxRelayBuilder b =
            OutboxRelay.builder(dsl)
                .handler(
                    BenchDatabase.TOPIC,
                    m -> {
                      if (hung && m.aggregate().equals(DrainBench.HUNG_AGGREGATE)) {
                        Thread.sleep(TimeUnit.HOURS.toMillis(1)); // until interrupted
                        return;
                      }
                      handled.increment();
                    })
                .batchSize(batch)
                .listen(false);
        if (hung) {
          b.maxHandlingTime(DrainBench.HUNG_MAX_HANDLING).shutdownTimeout(Duration.ofSeconds(5));
        }
        OutboxRelay relay = b.build();
        started.add(relay);
        relay.start();
      }
      long deadline = start + TimeUnit.MILLISECONDS.toNanos(timeBoxMillis);
      while (handled.sum() < target && System.nanoTime() < deadline) {
        Thread.sleep(2);
      }
      end = System.nanoTime();
      n = handled.sum();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } finally {
      for (OutboxRelay relay : started) {
        relay.close();
      }
    }
    return new DrainBench.Result(n, (end - start) / 1e9, n >= target);
  }
}
