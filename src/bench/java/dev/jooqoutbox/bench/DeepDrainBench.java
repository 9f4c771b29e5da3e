package dev.jooqoutbox.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.jooqoutbox.relay.OutboxRelay;
import dev.jooqoutbox.relay.OutboxRelayBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * Issue 14's deep drain (PostgreSQL): one relay with default settings drains a backlog of {@code
 * --deep-size} messages over 1000 aggregates, loaded and {@code VACUUM ANALYZE}d once, with
 * autovacuum as the server has it. Reported: the rate of the first and of the last tenth of the
 * backlog (100,000 of 1,000,000) and their ratio, and the primary-key index entries read per
 * message delivered ({@code idx_tup_read} of the primary key index in {@code pg_stat_user_indexes},
 * its change over the drain divided by the messages). The relay's pool is closed before the
 * statistics are read, so its backends have flushed their counters.
 */
final class DeepDrainBench {

  private DeepDrainBench() {}

  static void run(BenchDatabase db, BenchOptions opts, Recorder r) {
    for (int n : opts.deepSizes()) {
      drain(db, n, opts.deepMaxInFlight(), r);
    }
    r.info("aggregates", 1000);
    r.info("autovacuum", db.settings().getOrDefault("autovacuum", "?"));
    r.info(
        "relay", "OutboxRelay defaults (batch 100, maxRun 10, handlerConcurrency 4), listen off");
  }

  private static void drain(BenchDatabase db, int n, int maxInFlight, Recorder r) {
    long tenth = n / 10;
    String k = "deep.n" + n + ".";
    db.truncate();
    long t0 = System.nanoTime();
    db.loadMessages(n, 1000, false, "deep");
    db.analyze("outbox_message");
    System.out.printf("  loaded %,d pending rows in %.1f s%n", n, (System.nanoTime() - t0) / 1e9);
    sleep(1500); // the loading sessions' statistics reach the shared counters
    Map<String, Long> before = indexReads(db);

    LongAdder handled = new LongAdder();
    List<long[]> progress = new ArrayList<>(); // {handled, nanos since start}
    HikariDataSource pool = db.pool(4);
    long start = System.nanoTime();
    long timeout = TimeUnit.SECONDS.toNanos(Math.max(120, n / 300));
    OutboxRelayBuilder builder =
        OutboxRelay.builder(db.dsl(pool))
            .handler(BenchDatabase.TOPIC, m -> handled.increment())
            .listen(false);
    if (maxInFlight > 0) {
      builder.maxInFlight(maxInFlight);
    }
    try (OutboxRelay relay = builder.build()) {
      relay.start();
      long lastReport = start;
      while (handled.sum() < n) {
        sleep(50);
        long now = System.nanoTime();
        progress.add(new long[] {handled.sum(), now - start});
        if (now - start > timeout) {
          throw new IllegalStateException("deep drain: only " + handled.sum() + " of " + n);
        }
        if (now - lastReport > TimeUnit.SECONDS.toNanos(15)) {
          lastReport = now;
          System.out.printf(
              "  deep drain: %,d of %,d after %.0f s%n", handled.sum(), n, (now - start) / 1e9);
        }
      }
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    pool.close();
    sleep(1500);
    Map<String, Long> after = indexReads(db);
    long pending = db.pendingCount();

    double first = tenth / (timeTo(progress, tenth) / 1e9);
    double last = tenth / ((timeTo(progress, n) - timeTo(progress, n - tenth)) / 1e9);
    r.add(k + "first_rate", "deep drain of " + n + ": rate of the first " + tenth, "msg/s", first);
    r.add(k + "last_rate", "deep drain of " + n + ": rate of the last " + tenth, "msg/s", last);
    r.add(k + "rate", "deep drain of " + n + ": whole drain", "msg/s", n / seconds);
    r.ratio(
        k + "last_vs_first",
        "deep drain of " + n + ": rate of the last " + tenth + " / of the first " + tenth,
        k + "last_rate",
        k + "first_rate",
        ">= 0.7",
        0.7,
        true);
    String pk = primaryKeyIndex(db);
    Map<String, Object> perMessage = new LinkedHashMap<>();
    for (var e : after.entrySet()) {
      long delta = e.getValue() - before.getOrDefault(e.getKey(), 0L);
      perMessage.put(e.getKey(), Math.round(delta * 1000.0 / n) / 1000.0);
      if (e.getKey().equals(pk)) {
        r.add(
            k + "pk_reads_per_msg",
            "deep drain of " + n + ": primary-key index entries read per message (idx_tup_read)",
            "entries",
            delta / (double) n);
        r.goal(k + "pk_reads_per_msg", "<= 5", 5, false);
      }
    }
    Map<String, Object> info = new LinkedHashMap<>();
    info.put("pendingAfter", pending);
    info.put("seconds", Math.round(seconds));
    info.put("primaryKeyIndex", pk);
    info.put("indexEntriesReadPerMessage", perMessage);
    info.put("ratePerTenth", deciles(progress, n));
    r.info("n" + n, info);
  }

  /** Rate of each tenth of the drain, msg/s. */
  private static List<Long> deciles(List<long[]> progress, long n) {
    List<Long> rates = new ArrayList<>();
    for (int d = 1; d <= 10; d++) {
      long from = timeTo(progress, n * (d - 1) / 10);
      long to = timeTo(progress, n * d / 10);
      rates.add(Math.round((n / 10.0) / Math.max(1e-9, (to - from) / 1e9)));
    }
    return rates;
  }

  /** When the handled count first reached {@code count}, interpolated between samples (ns). */
  private static long timeTo(List<long[]> progress, long count) {
    long prevCount = 0;
    long prevTime = 0;
    for (long[] p : progress) {
      if (p[0] >= count) {
        if (p[0] == prevCount) {
          return p[1];
        }
        return prevTime + (p[1] - prevTime) * (count - prevCount) / (p[0] - prevCount);
      }
      prevCount = p[0];
      prevTime = p[1];
    }
    return progress.isEmpty() ? 0 : progress.get(progress.size() - 1)[1];
  }

  private static Map<String, Long> indexReads(BenchDatabase db) {
    Map<String, Long> reads = new LinkedHashMap<>();
    for (String index :
        db.queryStrings(
            "SELECT indexrelname FROM pg_stat_user_indexes WHERE schemaname = current_schema()"
                + " AND relname = 'outbox_message' ORDER BY indexrelname")) {
      reads.put(
          index,
          db.queryLong(
              "SELECT idx_tup_read FROM pg_stat_user_indexes WHERE schemaname = current_schema()"
                  + " AND indexrelname = '"
                  + index
                  + "'"));
    }
    return reads;
  }

  private static String primaryKeyIndex(BenchDatabase db) {
    return db.queryStrings(
            "SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid"
                + " WHERE i.indrelid = 'outbox_message'::regclass AND i.indisprimary")
        .get(0);
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
