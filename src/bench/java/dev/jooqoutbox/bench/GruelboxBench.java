package dev.jooqoutbox.bench;

import com.gruelbox.transactionoutbox.Dialect;
import com.gruelbox.transactionoutbox.Instantiator;
import com.gruelbox.transactionoutbox.Persistor;
import com.gruelbox.transactionoutbox.Submitter;
import com.gruelbox.transactionoutbox.ThreadLocalContextTransactionManager;
import com.gruelbox.transactionoutbox.TransactionManager;
import com.gruelbox.transactionoutbox.TransactionOutbox;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.jooq.DSLContext;

/**
 * The drain half of figure 5: a backlog drained by our relay and by gruelbox transaction-outbox,
 * each with no-op work, on the same PostgreSQL schema, interleaved in one run.
 *
 * <p>gruelbox is configured as its documentation shows for PostgreSQL: {@code
 * TransactionManager.fromDataSource} over a Hikari pool, {@code Persistor.forDialect(POSTGRESQL_9)}
 * (its DefaultPersistor), an {@code ExecutorSubmitter}, and {@code flush()} called in a loop. The
 * "default" run uses exactly what {@code Submitter.withDefaultExecutor()} builds (one thread, a
 * queue of 16,384) and the default flush batch (4,096); the "tuned" run uses 4 executor threads and
 * a flush batch of 8,192. The flush loop waits while the executor's queue has no room for a whole
 * batch: gruelbox drops a submission the executor rejects and retries it only after {@code
 * attemptFrequency} (2 minutes), which would stall the drain and not measure its speed.
 */
final class GruelboxBench {

  /** gruelbox's DEFAULT_FLUSH_BATCH_SIZE (private in TransactionOutboxImpl). */
  static final int DEFAULT_FLUSH_BATCH = 4096;

  static final int QUEUE = 16_384;
  static final String MARKER = "AGGREGATE_MARKER";

  enum Variant {
    OURS("gruelbox.ours_relay1", "jooq-outbox: 1 relay, batch 100, 1000 aggregates", 0, 0),
    DEFAULT(
        "gruelbox.default",
        "gruelbox: default executor (1 thread), flush batch 4096",
        1,
        DEFAULT_FLUSH_BATCH),
    TUNED("gruelbox.tuned", "gruelbox: 4-thread executor, flush batch 8192", 4, 8192);

    final String id;
    final String label;
    final int threads;
    final int flushBatch;

    Variant(String id, String label, int threads, int flushBatch) {
      this.id = id;
      this.label = label;
      this.threads = threads;
      this.flushBatch = flushBatch;
    }
  }

  static void run(BenchDatabase db, BenchOptions opts, Recorder r) {
    DataSource pool = db.pool(4 + 3);
    DSLContext dsl = db.dsl(pool);
    int n = opts.gruelboxSize();
    long timeBox = Math.max(opts.drainMillis() * 4, 10_000);
    List<Variant> variants = List.of(Variant.values());
    // Warm-up: a small backlog through each, untimed.
    for (Variant v : variants) {
      drainOnce(db, pool, dsl, v, Math.min(n, 2_000), timeBox);
    }
    for (int rep = 0; rep < opts.reps(); rep++) {
      for (Variant v : WriteBench.rotate(variants, rep)) {
        DrainBench.Result res = drainOnce(db, pool, dsl, v, n, timeBox);
        if (!res.complete()) {
          r.info("timeBoxed." + v.id + ".rep" + rep, res.delivered() + " of " + n);
        }
        r.add(v.id, v.label + ", backlog " + n, "msg/s", res.rate());
      }
    }
    r.ratio(
        "gruelbox.ours_vs_default",
        "our single relay / gruelbox default single-thread flush",
        Variant.OURS.id,
        Variant.DEFAULT.id,
        ">= 7",
        7,
        true);
    r.ratio(
        "gruelbox.ours_vs_tuned",
        "our single relay / gruelbox tuned (4 threads)",
        Variant.OURS.id,
        Variant.TUNED.id,
        ">= 2.5",
        2.5,
        true);
    r.info("backlog", n);
    r.info("gruelboxVersion", "com.gruelbox:transactionoutbox-core:4.2.268");
    r.info(
        "gruelboxConfig",
        "TransactionManager.fromDataSource(Hikari, 7 connections); Persistor.forDialect("
            + "Dialect.POSTGRESQL_9); Instantiator.using(no-op handler); ExecutorSubmitter over a"
            + " ThreadPoolExecutor(threads, threads, ArrayBlockingQueue(16384)); attemptFrequency"
            + " and blockAfterAttempts default; flush() in a loop, waiting while the queue has no"
            + " room for a whole flush batch");
  }

  private static DrainBench.Result drainOnce(
      BenchDatabase db, DataSource pool, DSLContext dsl, Variant v, int n, long timeBox) {
    if (v == Variant.OURS) {
      DrainBench.load(db, n, 1000);
      return DrainBench.drain(db, pool, dsl, DrainBench.Engine.RELAY1, 100, n, timeBox);
    }
    ThreadPoolExecutor executor =
        new ThreadPoolExecutor(
            v.threads, v.threads, 0L, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(QUEUE));
    LongAdder done = new LongAdder();
    // Counts an entry once processNow returned (its delete committed).
    Executor counting =
        task ->
            executor.execute(
                () -> {
                  try {
                    task.run();
                  } finally {
                    done.increment();
                  }
                });
    ThreadLocalContextTransactionManager tm = TransactionManager.fromDataSource(pool);
    GruelboxHandler handler = new GruelboxHandler();
    TransactionOutbox.TransactionOutboxBuilder builder =
        TransactionOutbox.builder()
            .transactionManager(tm)
            .persistor(Persistor.forDialect(Dialect.POSTGRESQL_9))
            .instantiator(Instantiator.using(type -> handler))
            .submitter(Submitter.withExecutor(counting));
    if (v.flushBatch != DEFAULT_FLUSH_BATCH) {
      builder.flushBatchSize(v.flushBatch);
    }
    TransactionOutbox outbox = builder.build();
    try {
      loadGruelbox(db, pool, tm, n);
      long start = System.nanoTime();
      long deadline = start + TimeUnit.MILLISECONDS.toNanos(timeBox);
      while (done.sum() < n && System.nanoTime() < deadline) {
        if (executor.getQueue().remainingCapacity() < v.flushBatch) {
          LockSupport.parkNanos(1_000_000);
          continue;
        }
        if (!outbox.flush()) {
          LockSupport.parkNanos(2_000_000); // all handed out; wait for the executor
        }
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      long delivered = done.sum();
      if (handler.calls() < delivered) {
        throw new IllegalStateException(
            "gruelbox processed "
                + delivered
                + " entries but called the handler only "
                + handler.calls()
                + " times");
      }
      return new DrainBench.Result(delivered, seconds, delivered >= n);
    } finally {
      executor.shutdownNow();
      try {
        executor.awaitTermination(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Writes one entry through gruelbox's own {@code schedule}, then copies it in plain SQL into a
   * backlog of {@code n} entries due now (bulk loading through {@code schedule} would take minutes
   * and is measured separately in the write figure). Each copy gets its own id and aggregate.
   */
  private static void loadGruelbox(
      BenchDatabase db, DataSource pool, ThreadLocalContextTransactionManager tm, int n) {
    db.truncate();
    TransactionOutbox writer =
        TransactionOutbox.builder()
            .transactionManager(tm)
            .persistor(Persistor.forDialect(Dialect.POSTGRESQL_9))
            .instantiator(Instantiator.using(type -> new GruelboxHandler()))
            .submitter((entry, local) -> {})
            .build();
    tm.inTransaction(
        () ->
            writer
                .schedule(GruelboxHandler.class)
                .orderPlaced(MARKER, 0, "c-0", "12.50", "benchmark payload"));
    try (Connection c = pool.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO txno_outbox (id, uniquerequestid, invocation, lastattempttime,"
                    + " nextattempttime, attempts, blocked, processed, version)"
                    + " SELECT gen_random_uuid()::text, NULL,"
                    + " replace(t.invocation, ?, 'order-' || (n % 1000)), NULL,"
                    + " t.nextattempttime - interval '1 hour', 0, false, false, t.version"
                    + " FROM txno_outbox t CROSS JOIN generate_series(1, ?) AS n ORDER BY n")) {
      ps.setString(1, MARKER);
      ps.setInt(2, n);
      int rows = ps.executeUpdate();
      if (rows != n) {
        throw new IllegalStateException("loaded " + rows + " gruelbox entries, wanted " + n);
      }
      try (PreparedStatement delete =
          c.prepareStatement("DELETE FROM txno_outbox WHERE invocation LIKE ?")) {
        delete.setString(1, "%" + MARKER + "%");
        if (delete.executeUpdate() != 1) {
          throw new IllegalStateException("the template entry was not deleted");
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException("gruelbox bulk load failed: " + e.getMessage(), e);
    }
    db.analyze("txno_outbox");
  }
}
