package dev.jooqoutbox.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.jooqoutbox.OutboxAdmin;
import dev.jooqoutbox.relay.OutboxRelay;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The purge figures (PostgreSQL, issue 28): what reclaiming delivered messages costs delivery, and
 * whether their space comes back without {@code VACUUM FULL}.
 *
 * <p>{@code purge.drain}: {@code --purge-sent} sent rows older than the retention wait behind a
 * backlog of {@code --purge-size} pending messages over 1000 aggregates, and one relay at its
 * defaults drains the backlog: with no purge running; while its own housekeeping purges the sent
 * rows (paced, as it runs in production); and while {@link OutboxAdmin#purge} deletes them at full
 * speed on another thread, as {@code outbox purge} does. The order rotates every repetition and
 * each run starts from a freshly loaded, {@code VACUUM ANALYZE}d table. Reported: drain rates, the
 * ratio of each purging run to the run without a purge of the same repetition, and the sent rows
 * deleted while the relay drained.
 *
 * <p>{@code purge.space}: three rounds of loading {@code --purge-sent} sent rows, purging them all
 * and a plain {@code VACUUM}; the table's total size (heap, indexes, TOAST) after each load and
 * after each vacuum. The same size after the third round as after the first means the space the
 * purge freed was used again, not given back to the file system.
 */
final class PurgeBench {

  private static final int AGGREGATES = 1000;
  private static final Duration RETENTION = Duration.ofMinutes(30);
  private static final List<String> MODES = List.of("none", "relay", "admin");

  private PurgeBench() {}

  private record Drain(long delivered, double seconds, long purged) {
    double rate() {
      return delivered / seconds;
    }
  }

  static void run(BenchDatabase db, BenchOptions opts, Recorder r) {
    int sent = opts.purgeSent();
    int n = opts.purgeSize();
    String warmup =
        JitWarmup.run(
            () -> drain(db, Math.min(sent, 20_000), Math.min(n, 20_000), "none", minutes(2)));
    long timeBox = TimeUnit.SECONDS.toNanos(Math.max(60, n / 500));
    List<Map<String, Object>> runs = new ArrayList<>();
    for (int rep = 0; rep < opts.purgeReps(); rep++) {
      for (String mode : WriteBench.rotate(MODES, rep)) {
        Drain d = drain(db, sent, n, mode, timeBox);
        r.add(
            "purge.drain." + mode + ".rate",
            "drain of " + n + " behind " + sent + " sent rows, purge: " + mode,
            "msg/s",
            d.rate());
        Map<String, Object> run = new LinkedHashMap<>();
        run.put("rep", rep);
        run.put("purge", mode);
        run.put("delivered", d.delivered());
        run.put("seconds", Math.round(d.seconds() * 10) / 10.0);
        run.put("purgedWhileDraining", d.purged());
        runs.add(run);
      }
    }
    r.ratio(
        "purge.drain.relay_ratio",
        "drain rate while the relay's own housekeeping purges / with no purge, same repetition",
        "purge.drain.relay.rate",
        "purge.drain.none.rate");
    r.ratio(
        "purge.drain.admin_ratio",
        "drain rate while OutboxAdmin.purge runs at full speed / with no purge, same repetition",
        "purge.drain.admin.rate",
        "purge.drain.none.rate");
    r.info("purgeSentRows", sent);
    r.info("drainBacklog", n);
    r.info("aggregates", AGGREGATES);
    r.info("drainWarmup", warmup);
    r.info("drainRuns", runs);
    r.info(
        "relay",
        "OutboxRelay defaults (batch 100, maxRun 10, handlerConcurrency 4), listen off, no-op"
            + " handler; retention 30 min (the sent rows are an hour old); the relay's purge"
            + " starts with the drain, the admin purge on its own thread at the same moment");
    r.info("spaceRounds", space(db, sent, r));
  }

  private static Drain drain(BenchDatabase db, int sent, int n, String mode, long timeBoxNanos) {
    db.truncate();
    db.loadMessages(sent, AGGREGATES, true, "s");
    db.loadMessages(n, AGGREGATES, false, "p");
    db.analyze("outbox_message");
    LongAdder handled = new LongAdder();
    HikariDataSource pool = db.pool(5);
    Thread admin = null;
    long start = System.nanoTime();
    long seconds;
    long sentLeft;
    try {
      try (OutboxRelay relay =
          OutboxRelay.builder(db.dsl(pool))
              .handler(BenchDatabase.TOPIC, m -> handled.increment())
              .listen(false)
              .retention(RETENTION)
              // The relay's first purge is due a purge interval after it starts.
              .purgeInterval(mode.equals("relay") ? Duration.ofMillis(1) : Duration.ofDays(1))
              .gaugeInterval(Duration.ofMillis(100))
              .build()) {
        relay.start();
        if (mode.equals("admin")) {
          admin =
              new Thread(() -> OutboxAdmin.create(db.dsl(pool)).purge(RETENTION), "bench-purge");
          admin.start();
        }
        while (handled.sum() < n && System.nanoTime() - start < timeBoxNanos) {
          HorizonBench.sleep(2);
        }
        seconds = System.nanoTime() - start;
        sentLeft = sentCount(db);
      }
      if (admin != null) {
        admin.join();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } finally {
      pool.close();
    }
    long delivered = handled.sum();
    // The rows the drain marked sent are younger than the retention: no purge deletes them.
    long purged = sent - Math.max(0, sentLeft - delivered);
    System.out.printf(
        "  purge drain (%s): %,d in %.1f s, %,d sent rows deleted meanwhile%n",
        mode, delivered, seconds / 1e9, purged);
    return new Drain(delivered, seconds / 1e9, purged);
  }

  /** Loads, purges and vacuums three times; the table's size after each step. */
  private static List<Map<String, Object>> space(BenchDatabase db, int sent, Recorder r) {
    db.truncate();
    db.analyze("outbox_message");
    List<Map<String, Object>> rounds = new ArrayList<>();
    HikariDataSource pool = db.pool(1);
    try {
      OutboxAdmin admin = OutboxAdmin.create(db.dsl(pool));
      for (int round = 1; round <= 3; round++) {
        db.loadMessages(sent, AGGREGATES, true, "space" + round);
        long loaded = totalSize(db);
        long t0 = System.nanoTime();
        admin.purge(RETENTION);
        double purgeSeconds = (System.nanoTime() - t0) / 1e9;
        db.execute("VACUUM outbox_message");
        long vacuumed = totalSize(db);
        r.add(
            "purge.space.round" + round + ".loaded_mb",
            "table and indexes after loading " + sent + " sent rows, round " + round,
            "MB",
            loaded / 1e6);
        Map<String, Object> one = new LinkedHashMap<>();
        one.put("round", round);
        one.put("loadedMB", Math.round(loaded / 1e5) / 10.0);
        one.put("purgeSeconds", Math.round(purgeSeconds * 10) / 10.0);
        one.put("afterPurgeAndVacuumMB", Math.round(vacuumed / 1e5) / 10.0);
        rounds.add(one);
        System.out.printf(
            "  purge space, round %d: %.1f MB loaded, purged in %.1f s, %.1f MB after VACUUM%n",
            round, loaded / 1e6, purgeSeconds, vacuumed / 1e6);
      }
    } finally {
      pool.close();
    }
    r.ratio(
        "purge.space.growth",
        "table and indexes after the third load / after the first (1.0: the space was reused)",
        "purge.space.round3.loaded_mb",
        "purge.space.round1.loaded_mb");
    return rounds;
  }

  private static long sentCount(BenchDatabase db) {
    return db.queryLong("SELECT count(*) FROM outbox_message WHERE sent_at IS NOT NULL");
  }

  private static long totalSize(BenchDatabase db) {
    return db.queryLong("SELECT pg_total_relation_size('outbox_message')");
  }

  private static long minutes(int m) {
    return TimeUnit.MINUTES.toNanos(m);
  }
}
