package dev.jooqoutbox.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.jooqoutbox.Outbox;
import dev.jooqoutbox.relay.OutboxRelay;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.LockSupport;
import org.jooq.DSLContext;

/**
 * {@code horizon.steady} (PostgreSQL): with a {@link HeldHorizon} open for the whole run, 4 writers
 * write {@code --horizon-rate} messages per second for {@code --horizon-seconds} in transactions of
 * 10 messages, on a schedule ({@link PacedWriters}), and one relay started with its defaults
 * delivers them. The history of delivered versions grows the whole time and nothing can clean it
 * up: the question is whether the relay keeps up and whether what it reads per message stays flat.
 *
 * <p>Every interval (10 s; a fifth of the run when shorter) it records what was written and
 * delivered, the pending count (written minus delivered: a {@code COUNT(*)} would itself walk the
 * held versions and add to the counters measured), the p99 of the lag of the messages delivered in
 * it, and the outbox's index entries read per message delivered in it. The lag runs from just
 * before the writer's commit (after its last write, as in {@link LatencyBench}) to the start of the
 * handler. Backends report their statistics about once a second while busy, so an interval's
 * entries are those reported in it, not exactly those read in it.
 */
final class HorizonSteady {

  static final int WRITERS = 4;

  private HorizonSteady() {}

  private record Interval(
      double endSecond,
      long written,
      long delivered,
      long pending,
      double lagP99,
      double entries,
      Map<String, Double> byIndex) {
    Map<String, Object> toMap() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("s", Math.round(endSecond));
      m.put("written", written);
      m.put("delivered", delivered);
      m.put("pending", pending);
      m.put("lagP99Ms", Math.round(lagP99 * 10) / 10.0);
      m.put("entriesPerMsg", Math.round(entries * 100) / 100.0);
      m.put("byIndex", byIndex);
      return m;
    }
  }

  static void run(BenchDatabase db, BenchOptions opts, Recorder r) {
    int rate = opts.horizonRate();
    double seconds = opts.horizonSeconds();
    long transactions = (long) Math.ceil(rate * seconds / PacedWriters.TX_MESSAGES);
    if (transactions * PacedWriters.TX_MESSAGES > 100_000_000L) {
      throw new IllegalArgumentException("--horizon-rate x --horizon-seconds is too large");
    }
    long txNanos = TimeUnit.SECONDS.toNanos(PacedWriters.TX_MESSAGES) / rate;
    long intervalNanos =
        TimeUnit.MILLISECONDS.toNanos(Math.round(Math.min(10, seconds / 5) * 1000));
    // The lag of each delivery, in the order delivered.
    AtomicIntegerArray lagMicros =
        new AtomicIntegerArray((int) transactions * PacedWriters.TX_MESSAGES);
    AtomicInteger delivered = new AtomicInteger();
    List<Interval> series = new ArrayList<>();

    db.truncate();
    db.analyze("outbox_message");
    DSLContext writerDsl = db.dsl(db.pool(WRITERS + 2));
    Outbox outbox = Outbox.builder(writerDsl).build(); // defaults: wakes relays after commit
    PacedWriters writers = new PacedWriters(outbox, writerDsl, (int) transactions, txNanos);
    HikariDataSource relayPool = db.pool(5);
    long pendingEnd;
    long horizonAge;
    double ranSeconds;
    Map<String, Long> startReads = HorizonBench.indexEntriesRead(db);
    try (HeldHorizon horizon = HeldHorizon.open(db, opts.horizonWrites())) {
      try (OutboxRelay relay =
          OutboxRelay.builder(db.dsl(relayPool))
              .handler(
                  BenchDatabase.TOPIC,
                  m -> {
                    int tx = Integer.parseInt(m.headers().get(PacedWriters.TX_HEADER));
                    long lag = System.nanoTime() - writers.commitAt.get(tx);
                    int i = delivered.getAndIncrement();
                    if (i < lagMicros.length()) {
                      lagMicros.set(i, (int) Math.min(Integer.MAX_VALUE, lag / 1000));
                    }
                  })
              .build()) {
        relay.start();
        long t0 = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
        writers.start(WRITERS, t0);
        long end = t0 + TimeUnit.MILLISECONDS.toNanos(Math.round(seconds * 1000));
        Boundary last = new Boundary(0, 0, startReads);
        for (long at = t0 + intervalNanos; at <= end + 1_000_000; at += intervalNanos) {
          LockSupport.parkNanos(at - System.nanoTime());
          if (writers.failed()) {
            break;
          }
          Boundary next =
              new Boundary(
                  writers.written.sum(), delivered.get(), HorizonBench.indexEntriesRead(db));
          series.add(interval((at - t0) / 1e9, last, next, lagMicros));
          last = next;
        }
        writers.join();
        ranSeconds = (System.nanoTime() - t0) / 1e9;
        pendingEnd = writers.written.sum() - delivered.get();
        // The rest is delivered too, so the overall lag covers every message (time-boxed).
        long tail = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (delivered.get() < writers.written.sum() && System.nanoTime() < tail) {
          HorizonBench.sleep(20);
        }
        horizonAge = horizon.age();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } finally {
      relayPool.close(); // its backends exit and report their statistics
    }
    long written = writers.written.sum();
    report(r, opts, series, lagMicros, delivered.get(), written, pendingEnd, ranSeconds);
    HorizonBench.sleep(1000);
    Map<String, Long> endReads = HorizonBench.indexEntriesRead(db);
    r.info(
        "steadyEntriesPerMsgOverall",
        Math.round(HorizonBench.readBetween(startReads, endReads) * 100.0 / delivered.get())
            / 100.0);
    r.info(
        "steadyEntriesPerMsgByIndex",
        HorizonBench.perMessage(startReads, endReads, delivered.get()));
    r.info("steadyHorizonAgeXids", horizonAge);
    r.info("steadyPendingAfterTail", db.pendingCount());
  }

  /** The counters at one interval boundary. */
  private record Boundary(long written, int delivered, Map<String, Long> reads) {}

  private static Interval interval(
      double second, Boundary from, Boundary to, AtomicIntegerArray lagMicros) {
    long n = to.delivered() - from.delivered();
    Interval i =
        new Interval(
            second,
            to.written() - from.written(),
            n,
            to.written() - to.delivered(),
            lagP99(lagMicros, from.delivered(), to.delivered()),
            n == 0 ? Double.NaN : HorizonBench.readBetween(from.reads(), to.reads()) / (double) n,
            HorizonBench.perMessage(from.reads(), to.reads(), n));
    System.out.printf(
        Locale.ROOT,
        "  horizon steady %5.0f s: written %,7d delivered %,7d pending %,7d lag p99 %7.1f ms"
            + " entries/msg %6.2f %s%n",
        second,
        i.written(),
        i.delivered(),
        i.pending(),
        i.lagP99(),
        i.entries(),
        i.byIndex().toString().replace("ix_outbox_message_", ""));
    return i;
  }

  /** p99 in ms of the lags recorded in slots {@code [from, to)}. */
  private static double lagP99(AtomicIntegerArray lagMicros, int from, int to) {
    to = Math.min(to, lagMicros.length());
    double[] ms = new double[Math.max(0, to - from)];
    for (int i = from; i < to; i++) {
      ms[i - from] = lagMicros.get(i) / 1000.0;
    }
    return Stats.percentile(ms, 99);
  }

  private static void report(
      Recorder r,
      BenchOptions opts,
      List<Interval> series,
      AtomicIntegerArray lagMicros,
      int delivered,
      long written,
      long pendingEnd,
      double ranSeconds) {
    int rate = opts.horizonRate();
    r.add(
        "horizon.steady.write_rate",
        "held horizon, steady run: write rate reached",
        "msg/s",
        written / ranSeconds);
    r.add(
        "horizon.steady.pending_end",
        "held horizon, steady run: pending when the writers stopped",
        "msg",
        pendingEnd);
    r.goal("horizon.steady.pending_end", "<= 2 s of writes (" + 2 * rate + ")", 2.0 * rate, false);
    r.add(
        "horizon.steady.lag_p99",
        "held horizon, steady run: commit to handler, p99 (all)",
        "ms",
        lagP99(lagMicros, 0, delivered));
    double maxP99 = series.stream().mapToDouble(Interval::lagP99).max().orElse(Double.NaN);
    r.add(
        "horizon.steady.lag_p99_max_interval",
        "held horizon, steady run: highest p99 of one interval",
        "ms",
        maxP99);
    if (!series.isEmpty()) {
      r.add(
          "horizon.steady.entries_first",
          "held horizon, steady run: index entries read per message, first interval",
          "entries",
          series.get(0).entries());
      r.add(
          "horizon.steady.entries_last",
          "held horizon, steady run: index entries read per message, last interval",
          "entries",
          series.get(series.size() - 1).entries());
      r.ratio(
          "horizon.steady.entries_ratio",
          "index entries read per message, last interval / first, held horizon",
          "horizon.steady.entries_last",
          "horizon.steady.entries_first",
          "<= 2",
          2,
          false);
    }
    boolean keptUp = pendingEnd <= 2L * rate;
    System.out.printf(
        Locale.ROOT,
        "  horizon steady: %s (pending %,d when the writers stopped)%n",
        keptUp ? "kept up" : "FELL BEHIND",
        pendingEnd);
    r.info("steadyKeptUp", keptUp);
    r.info("steadyTargetRate", rate);
    r.info("steadySeconds", opts.horizonSeconds());
    r.info(
        "steadyWriters",
        WRITERS + " threads, transactions of " + PacedWriters.TX_MESSAGES + " messages");
    r.info("steadyWritten", written);
    r.info("steadyDelivered", delivered);
    r.info("steadySeries", series.stream().map(Interval::toMap).toList());
  }
}
