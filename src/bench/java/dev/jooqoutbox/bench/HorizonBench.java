package dev.jooqoutbox.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.jooqoutbox.relay.OutboxRelay;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The held-horizon figures (PostgreSQL): a long transaction elsewhere on the server must not stop
 * the outbox. While a {@link HeldHorizon} is open, no version of a delivered message can be cleaned
 * up, so whatever walks the outbox's indexes walks them too.
 *
 * <p>{@code horizon.drain}: one relay at its defaults drains a backlog of {@code --horizon-size}
 * messages over 1000 aggregates, once without and once with the held horizon, the order swapped
 * every repetition. Each run starts from a freshly loaded, {@code VACUUM ANALYZE}d table. Reported:
 * handler completions per second, their ratio with / without per repetition, and the outbox's index
 * entries read per message ({@code idx_tup_read} of all its indexes, the change over the drain over
 * the messages). The relay's pool is closed before the statistics are read after the drain: a
 * backend that exits reports its counters, an idle one only within a second or more.
 *
 * <p>{@code horizon.steady}: see {@link HorizonSteady}.
 */
final class HorizonBench {

  static final int AGGREGATES = 1000;

  private HorizonBench() {}

  /** One drain: messages delivered, seconds, index entries read, and what held the horizon. */
  private record Drain(
      long delivered,
      double seconds,
      long entriesRead,
      Map<String, Double> byIndex,
      boolean complete,
      long horizonAge) {
    double rate() {
      return delivered / seconds;
    }

    double entriesPerMessage() {
      return delivered == 0 ? Double.NaN : entriesRead / (double) delivered;
    }
  }

  static void run(BenchDatabase db, BenchOptions opts, Recorder r) {
    int n = opts.horizonSize();
    // Untimed drains of a smaller backlog first, so that the first measured run of a pair is not
    // also the one that pays for the JIT (this group may run alone in its JVM).
    String warmup =
        JitWarmup.run(
            () -> drain(db, Math.min(n, 20_000), false, false, TimeUnit.MINUTES.toNanos(2)));
    long timeBox = TimeUnit.SECONDS.toNanos(Math.max(60, n / 500));
    List<Map<String, Object>> runs = new ArrayList<>();
    for (int rep = 0; rep < opts.horizonReps(); rep++) {
      for (boolean held : WriteBench.rotate(List.of(false, true), rep)) {
        long others = HeldHorizon.otherHolders(db);
        Drain d = drain(db, n, held, opts.horizonWrites(), timeBox);
        String k = "horizon.drain." + (held ? "with" : "without");
        String what = held ? "with a held REPEATABLE READ transaction" : "no transaction held";
        r.add(k + ".rate", "drain of " + n + ", 1 relay, " + what, "msg/s", d.rate());
        r.add(
            k + ".entries_per_msg",
            "drain of " + n + ", " + what + ": outbox index entries read per message",
            "entries",
            d.entriesPerMessage());
        Map<String, Object> run = new LinkedHashMap<>();
        run.put("rep", rep);
        run.put("held", held);
        run.put("delivered", d.delivered());
        run.put("seconds", Math.round(d.seconds() * 10) / 10.0);
        run.put("complete", d.complete());
        run.put("entriesPerMsgByIndex", d.byIndex());
        run.put("horizonAgeXids", d.horizonAge());
        run.put("otherSessionsHoldingSnapshots", others);
        runs.add(run);
        if (others > 0) {
          System.out.printf(
              "  note: %d other session(s) of this database held a snapshot at the start%n",
              others);
        }
      }
    }
    r.ratio(
        "horizon.drain.ratio",
        "drain rate with the held horizon / without, same repetition",
        "horizon.drain.with.rate",
        "horizon.drain.without.rate");
    r.ratio(
        "horizon.drain.entries_ratio",
        "index entries read per message with the held horizon / without, same repetition",
        "horizon.drain.with.entries_per_msg",
        "horizon.drain.without.entries_per_msg");
    r.info(
        "holder",
        opts.horizonWrites()
            ? "a REPEATABLE READ transaction that also wrote a row of another table"
            : "a REPEATABLE READ transaction that only read");
    r.info("drainBacklog", n);
    r.info("aggregates", AGGREGATES);
    r.info("drainTimeBoxSeconds", TimeUnit.NANOSECONDS.toSeconds(timeBox));
    r.info("drainWarmup", warmup);
    r.info("drainRuns", runs);
    r.info(
        "relay",
        "OutboxRelay defaults (batch 100, maxRun 10, handlerConcurrency 4), listen off for the"
            + " drain (the backlog is written before it starts), on for the steady run; no-op"
            + " handler");
    r.info("autovacuum", db.settings().getOrDefault("autovacuum", "?"));
    HorizonSteady.run(db, opts, r);
  }

  private static Drain drain(
      BenchDatabase db, int n, boolean held, boolean writes, long timeBoxNanos) {
    db.truncate();
    db.loadMessages(n, AGGREGATES, false, "h");
    db.analyze("outbox_message"); // VACUUM ANALYZE: both runs of a pair start from the same table
    Map<String, Long> before = indexEntriesRead(db);
    LongAdder handled = new LongAdder();
    HikariDataSource pool = db.pool(4);
    HeldHorizon horizon = held ? HeldHorizon.open(db, writes) : null;
    long start = System.nanoTime();
    long seconds;
    long age = 0;
    try {
      try (OutboxRelay relay =
          OutboxRelay.builder(db.dsl(pool))
              .handler(BenchDatabase.TOPIC, m -> handled.increment())
              .listen(false)
              .build()) {
        relay.start();
        long lastReport = start;
        while (handled.sum() < n && System.nanoTime() - start < timeBoxNanos) {
          sleep(2);
          if (System.nanoTime() - lastReport > TimeUnit.SECONDS.toNanos(15)) {
            lastReport = System.nanoTime();
            System.out.printf(
                "  horizon drain (%s): %,d of %,d after %.0f s%n",
                held ? "held" : "not held", handled.sum(), n, (lastReport - start) / 1e9);
          }
        }
        seconds = System.nanoTime() - start;
      }
      if (horizon != null) {
        age = horizon.age();
      }
    } finally {
      if (horizon != null) {
        horizon.close();
      }
      pool.close();
    }
    long delivered = handled.sum();
    sleep(1000);
    Map<String, Long> after = indexEntriesRead(db);
    long read = readBetween(before, after);
    System.out.printf(
        "  horizon drain (%s): %,d in %.1f s, %.1f index entries read per message%n",
        held ? "held" : "not held", delivered, seconds / 1e9, read / (double) delivered);
    return new Drain(
        delivered, seconds / 1e9, read, perMessage(before, after, delivered), delivered >= n, age);
  }

  /**
   * Index entries returned by index scans of the outbox table so far, per index (entries of dead
   * versions included). Read on a fresh connection, so the statistics are not a snapshot cached by
   * an earlier read of the same transaction.
   */
  static Map<String, Long> indexEntriesRead(BenchDatabase db) {
    Map<String, Long> reads = new TreeMap<>();
    for (String row :
        db.queryStrings(
            "SELECT indexrelname || ' ' || idx_tup_read FROM pg_stat_user_indexes"
                + " WHERE relid = 'outbox_message'::regclass")) {
      int space = row.lastIndexOf(' ');
      reads.put(row.substring(0, space), Long.parseLong(row.substring(space + 1)));
    }
    return reads;
  }

  /** Entries read between two readings, all indexes together. */
  static long readBetween(Map<String, Long> before, Map<String, Long> after) {
    long read = 0;
    for (var e : after.entrySet()) {
      read += e.getValue() - before.getOrDefault(e.getKey(), 0L);
    }
    return read;
  }

  /** Entries read per message of each index between two readings, rounded for the results. */
  static Map<String, Double> perMessage(Map<String, Long> before, Map<String, Long> after, long n) {
    Map<String, Double> per = new TreeMap<>();
    for (var e : after.entrySet()) {
      long read = e.getValue() - before.getOrDefault(e.getKey(), 0L);
      per.put(e.getKey(), n == 0 ? Double.NaN : Math.round(read * 100.0 / n) / 100.0);
    }
    return per;
  }

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
