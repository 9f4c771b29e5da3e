package dev.jooqoutbox.bench;

import dev.jooqoutbox.Outbox;
import dev.jooqoutbox.bench.BenchDatabase.Kind;
import dev.jooqoutbox.relay.OutboxRelay;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;

/**
 * Figure 4: the time from a writer's commit to the start of the handler, for messages written at a
 * steady rate (1,000 per second over 4 writer threads), with the relay polling only ({@code
 * listen(false)}, default 500 ms poll interval, writers not notifying), and with the wake-up after
 * commit (notifyOnWrite on, jOOQ transactions with {@code Outbox.transactionListener()}): a relay
 * in the writers' JVM, woken in process, and (PostgreSQL) a relay in a child JVM ({@link
 * LatencyChild}), woken by the coalesced {@code NOTIFY}. The child prints the {@code
 * System.nanoTime()} of each handler start; on Linux that clock is the system's monotonic clock,
 * the same in both JVMs.
 *
 * <p>The clock starts just before the writer's transaction commits (after {@code Outbox.write}
 * returned, inside the transaction), so the figure includes the commit itself (reported on its own
 * too). Messages written in the first second warm up and are not counted. When the writers cannot
 * keep the rate they fall behind their schedule; the rate they reached is reported with the
 * latencies.
 */
final class LatencyBench {

  static final int WRITERS = 4;

  enum Variant {
    POLLING("polling", "polling only (listen off, notify off, poll 500 ms)", false, false),
    WAKEUP("wakeup", "wake-up after commit, relay in the writers' JVM (defaults)", true, false),
    OTHER_JVM("otherjvm", "wake-up after commit, relay in another JVM (NOTIFY)", true, true);

    final String key;
    final String label;
    final boolean notify;
    final boolean child;

    Variant(String key, String label, boolean notify, boolean child) {
      this.key = key;
      this.label = label;
      this.notify = notify;
      this.child = child;
    }
  }

  static void run(BenchDatabase db, BenchOptions opts, Recorder r) {
    DSLContext plainDsl = db.dsl(db.pool(WRITERS + 2));
    // Writes in jOOQ transactions with the outbox's after-commit hook, as docs/guide.md advises.
    DSLContext writerDsl =
        DSL.using(plainDsl.configuration().deriveAppending(Outbox.transactionListener()));
    DSLContext relayDsl = db.dsl(db.pool(5));
    List<Variant> variants =
        db.kind() == Kind.POSTGRESQL
            ? List.of(Variant.values())
            : List.of(Variant.POLLING, Variant.WAKEUP);
    for (int rep = 0; rep < opts.reps(); rep++) {
      for (Variant v : WriteBench.rotate(variants, rep)) {
        db.truncate();
        Run run = measure(db, writerDsl, relayDsl, v, opts);
        String base = "latency." + v.key;
        r.add(base + ".p50", v.label + ": p50", "ms", Stats.percentile(run.latencies(), 50));
        r.add(base + ".p95", v.label + ": p95", "ms", Stats.percentile(run.latencies(), 95));
        r.add(base + ".p99", v.label + ": p99", "ms", Stats.percentile(run.latencies(), 99));
        r.add(
            base + ".commit_p50",
            v.label + ": the commit itself, p50",
            "ms",
            Stats.percentile(run.commits(), 50));
        r.add(base + ".rate", v.label + ": write rate reached", "msg/s", run.rate());
      }
    }
    if (db.kind() == Kind.POSTGRESQL) {
      r.goal("latency.wakeup.p50", "< 5 ms", 5, false);
      r.goal("latency.wakeup.p99", "< 25 ms", 25, false);
      r.goal("latency.otherjvm.p50", "< 10 ms", 10, false);
      r.goal("latency.otherjvm.p99", "< 50 ms", 50, false);
    }
    r.info("targetRate", opts.rate());
    r.info("writers", WRITERS);
    r.info("windowSeconds", opts.latencySeconds());
    r.info("start", "just before the writer's commit; end: first line of the handler");
  }

  /** Latencies and commit durations in ms, and the write rate the writers actually reached. */
  private record Run(double[] latencies, double[] commits, double rate) {}

  private static Run measure(
      BenchDatabase db, DSLContext writerDsl, DSLContext relayDsl, Variant v, BenchOptions opts) {
    Outbox outbox = Outbox.builder(writerDsl).notifyOnWrite(v.notify).build();
    Map<String, Long> committing = new ConcurrentHashMap<>();
    List<Double> latencies = java.util.Collections.synchronizedList(new ArrayList<>());
    AtomicLong expected = new AtomicLong();
    List<Double> commits = java.util.Collections.synchronizedList(new ArrayList<>());
    AtomicLong firstCommit = new AtomicLong(Long.MAX_VALUE);
    AtomicLong lastCommit = new AtomicLong(Long.MIN_VALUE);
    java.util.function.ObjLongConsumer<String> started =
        (id, now) -> {
          Long start = committing.remove(id);
          if (start != null) {
            latencies.add((now - start) / 1e6);
          }
        };
    try (AutoCloseable relay =
        v.child ? LatencyChild.start(db.url(), started) : startRelay(relayDsl, v, started)) {
      long warmupNanos = TimeUnit.SECONDS.toNanos(1);
      long windowNanos = TimeUnit.MILLISECONDS.toNanos(opts.latencyMillis());
      long intervalNanos = TimeUnit.SECONDS.toNanos(1) / opts.rate();
      long t0 = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
      long measureFrom = t0 + warmupNanos;
      long end = measureFrom + windowNanos;
      AtomicLong ticket = new AtomicLong();
      AtomicReference<Throwable> failure = new AtomicReference<>();
      List<Thread> writers = new ArrayList<>();
      for (int w = 0; w < WRITERS; w++) {
        Thread t =
            new Thread(
                () -> {
                  try {
                    while (true) {
                      long k = ticket.getAndIncrement();
                      long at = t0 + k * intervalNanos;
                      if (at >= end) {
                        return;
                      }
                      long wait = at - System.nanoTime();
                      if (wait > 0) {
                        LockSupport.parkNanos(wait);
                      }
                      boolean counted = at >= measureFrom;
                      long[] commitStart = new long[1];
                      writerDsl.transaction(
                          c -> {
                            Workload.insertOrder(c.dsl(), k);
                            String id =
                                outbox.write(
                                    c.dsl(),
                                    Workload.aggregate(k),
                                    BenchDatabase.TOPIC,
                                    Workload.OrderPlaced.of(k));
                            commitStart[0] = System.nanoTime();
                            if (counted) {
                              expected.incrementAndGet();
                              committing.put(id, commitStart[0]);
                            }
                          });
                      if (counted) {
                        long done = System.nanoTime();
                        commits.add((done - commitStart[0]) / 1e6);
                        firstCommit.accumulateAndGet(commitStart[0], Math::min);
                        lastCommit.accumulateAndGet(done, Math::max);
                      }
                    }
                  } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                  }
                },
                "bench-latency-writer-" + w);
        t.setDaemon(true);
        writers.add(t);
        t.start();
      }
      for (Thread t : writers) {
        t.join();
      }
      if (failure.get() != null) {
        throw new IllegalStateException("a writer failed: " + failure.get(), failure.get());
      }
      long waitUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (latencies.size() < expected.get() && System.nanoTime() < waitUntil) {
        Thread.sleep(20);
      }
      if (latencies.size() < expected.get()) {
        throw new IllegalStateException(
            "only " + latencies.size() + " of " + expected.get() + " messages were delivered");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (Exception e) {
      throw new IllegalStateException(v.key + ": " + e.getMessage(), e);
    }
    double seconds = (lastCommit.get() - firstCommit.get()) / 1e9;
    synchronized (latencies) {
      synchronized (commits) {
        return new Run(
            latencies.stream().mapToDouble(Double::doubleValue).toArray(),
            commits.stream().mapToDouble(Double::doubleValue).toArray(),
            seconds > 0 ? expected.get() / seconds : Double.NaN);
      }
    }
  }

  private static OutboxRelay startRelay(
      DSLContext relayDsl, Variant v, java.util.function.ObjLongConsumer<String> started) {
    OutboxRelay relay =
        OutboxRelay.builder(relayDsl)
            .handler(BenchDatabase.TOPIC, m -> started.accept(m.id(), System.nanoTime()))
            .listen(v.notify)
            .build();
    relay.start();
    return relay;
  }
}
