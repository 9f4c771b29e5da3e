package dev.jooqoutbox.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.jooqoutbox.relay.OutboxRelay;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * Issue 46's figures for PostgreSQL's event log, side by side in one run: the relay (its defaults,
 * a handler that reads the payload) draining {@code --size} messages of the log over 1000
 * aggregates and over 10 hot ones; the hand-written row-state loop ({@link PureSqlLoop}) draining
 * as many rows of outbox_message; and a hand-written loop over an insert-only table read by
 * position, 100 rows a batch, a one-row cursor moved per batch: what the job costs when nothing is
 * updated. For each, the row versions updated or deleted a message in the whole schema ({@code
 * pg_stat_user_tables}, read once the drain's backends have ended and flushed them). Each
 * repetition runs the four in a rotating order.
 */
final class EventLogBench {

  private static final int BATCH = 100;

  private EventLogBench() {}

  static void run(BenchDatabase db, BenchOptions opts, Recorder r) {
    int size = opts.size();
    r.info("messages", size);
    ensureLogTable(db);
    String[] engines = {"relay", "hot", "rows", "log"};
    for (int rep = 0; rep < opts.reps(); rep++) {
      for (int i = 0; i < engines.length; i++) {
        String engine = engines[(i + rep) % engines.length];
        switch (engine) {
          case "relay" -> relay(db, r, size, 1000, "eventlog.relay1000");
          case "hot" -> relay(db, r, size, 10, "eventlog.relay10");
          case "rows" -> rowLoop(db, r, size);
          case "log" -> insertOnlyLoop(db, r, size);
          default -> throw new IllegalStateException(engine);
        }
      }
    }
    r.ratio(
        "eventlog.relay_vs_log",
        "relay (event log, 1000 aggregates) / hand-written insert-only loop",
        "eventlog.relay1000.rate",
        "eventlog.log.rate",
        "at least 0.35x",
        0.35,
        true);
    r.ratio(
        "eventlog.hot_vs_uniform",
        "relay on 10 hot aggregates / on 1000",
        "eventlog.relay10.rate",
        "eventlog.relay1000.rate",
        "at least 0.8x",
        0.8,
        true);
    r.ratio(
        "eventlog.relay_vs_rows",
        "relay (event log) / hand-written row-state loop",
        "eventlog.relay1000.rate",
        "eventlog.rows.rate");
  }

  private static void relay(BenchDatabase db, Recorder r, int size, int aggregates, String id) {
    db.truncate();
    db.loadLog(size, aggregates, "e", 10);
    db.analyze("outbox_event", "outbox_event_key");
    long before = changedVersions(db);
    LongAdder handled = new LongAdder();
    long start;
    long end;
    try (HikariDataSource pool = db.pool(10)) {
      try (OutboxRelay relay =
          OutboxRelay.builder(db.dsl(pool))
              .handler(
                  BenchDatabase.TOPIC,
                  m -> {
                    if (m.payloadJson().isEmpty()) {
                      throw new IllegalStateException("no payload");
                    }
                    handled.increment();
                  })
              .listen(false)
              .build()) {
        start = System.nanoTime();
        relay.start();
        while (handled.sum() < size) {
          sleep(2);
        }
        end = System.nanoTime();
      }
    }
    record(
        r,
        db,
        id,
        "relay on the event log, " + aggregates + " aggregates",
        size,
        start,
        end,
        before);
  }

  private static void rowLoop(BenchDatabase db, Recorder r, int size) {
    db.truncate();
    db.loadMessages(size, 1000, false, "s");
    db.analyze("outbox_message");
    long before = changedVersions(db);
    long start;
    long end;
    try (HikariDataSource pool = db.pool(2);
        PureSqlLoop loop = new PureSqlLoop(db.kind(), pool, BATCH, PureSqlLoop.MAX_RUN)) {
      long done = 0;
      start = System.nanoTime();
      while (done < size) {
        int n = loop.cycle();
        if (n == 0) {
          sleep(1);
        }
        done += n;
      }
      end = System.nanoTime();
    } catch (Exception e) {
      throw new IllegalStateException("row-state loop failed: " + e.getMessage(), e);
    }
    record(r, db, "eventlog.rows", "hand-written row-state loop", size, start, end, before);
  }

  private static void insertOnlyLoop(BenchDatabase db, Recorder r, int size) {
    db.execute("TRUNCATE bench_log RESTART IDENTITY");
    db.execute("UPDATE bench_cursor SET pos = 0");
    db.execute(
        "INSERT INTO bench_log (id, aggregate, topic, payload, created_at, available_at)"
            + " SELECT 'l-' || n, 'order-' || (n % 1000), '"
            + BenchDatabase.TOPIC
            + "', jsonb_build_object('orderId', n, 'customer', 'c-' || (n % 1000), 'amount',"
            + " '12.50', 'note', 'benchmark payload'), 0, 0 FROM generate_series(1, "
            + size
            + ") AS n ORDER BY n");
    db.analyze("bench_log", "bench_cursor");
    long before = changedVersions(db);
    long start;
    long end;
    try (HikariDataSource pool = db.pool(1);
        Connection c = pool.getConnection();
        PreparedStatement read =
            c.prepareStatement(
                "SELECT seq, id, aggregate, topic, payload::text, headers::text, created_at,"
                    + " available_at FROM bench_log WHERE seq > ? ORDER BY seq LIMIT "
                    + BATCH);
        PreparedStatement cursor = c.prepareStatement("SELECT pos FROM bench_cursor");
        PreparedStatement move = c.prepareStatement("UPDATE bench_cursor SET pos = ?")) {
      c.setAutoCommit(false);
      long done = 0;
      start = System.nanoTime();
      while (done < size) {
        long pos;
        try (ResultSet rs = cursor.executeQuery()) {
          rs.next();
          pos = rs.getLong(1);
        }
        read.setLong(1, pos);
        long last = pos;
        int n = 0;
        try (ResultSet rs = read.executeQuery()) {
          while (rs.next()) {
            last = rs.getLong(1);
            for (int col = 2; col <= 8; col++) {
              rs.getObject(col); // every column a handler gets
            }
            n++;
          }
        }
        move.setLong(1, last);
        move.executeUpdate();
        c.commit();
        done += n;
      }
      end = System.nanoTime();
    } catch (SQLException e) {
      throw new IllegalStateException("insert-only loop failed: " + e.getMessage(), e);
    }
    record(
        r,
        db,
        "eventlog.log",
        "hand-written insert-only loop, read by position",
        size,
        start,
        end,
        before);
  }

  private static void record(
      Recorder r,
      BenchDatabase db,
      String id,
      String label,
      int size,
      long start,
      long end,
      long before) {
    double seconds = (end - start) / 1e9;
    r.add(id + ".rate", label, "msg/s", size / seconds);
    r.add(
        id + ".versions",
        label + ": row versions updated or deleted a message",
        "per message",
        (double) (stableChangedVersions(db) - before) / size);
  }

  private static void ensureLogTable(BenchDatabase db) {
    db.execute(
        "CREATE TABLE IF NOT EXISTS bench_log (seq BIGSERIAL PRIMARY KEY, id TEXT NOT NULL,"
            + " aggregate TEXT NOT NULL, topic TEXT NOT NULL, payload JSONB NOT NULL, headers JSONB,"
            + " created_at BIGINT NOT NULL, available_at BIGINT NOT NULL)");
    db.execute("CREATE TABLE IF NOT EXISTS bench_cursor (pos BIGINT NOT NULL)");
    if (db.queryLong("SELECT count(*) FROM bench_cursor") == 0) {
      db.execute("INSERT INTO bench_cursor VALUES (0)");
    }
  }

  /** Row versions updated or deleted in every table of the bench's schema so far. */
  private static long changedVersions(BenchDatabase db) {
    return db.queryLong(
        "SELECT coalesce(sum(n_tup_upd + n_tup_del), 0) FROM pg_stat_user_tables"
            + " WHERE schemaname = current_schema()");
  }

  /** The count once the drain's backends (their pool closed) have flushed their statistics. */
  private static long stableChangedVersions(BenchDatabase db) {
    long last = -1;
    for (int i = 0; i < 50; i++) {
      long now = changedVersions(db);
      if (now == last) {
        return now;
      }
      last = now;
      sleep(200);
    }
    return last;
  }

  private static void sleep(long millis) {
    try {
      TimeUnit.MILLISECONDS.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
