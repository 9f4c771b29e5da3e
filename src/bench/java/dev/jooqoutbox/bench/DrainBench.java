package dev.jooqoutbox.bench;

import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.bench.BenchDatabase.Kind;
import dev.jooqoutbox.internal.repository.JooqOutboxRepository;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.jooq.DSLContext;

/**
 * Figure 2: how fast a pre-written backlog drains through the relay with a no-op handler, against
 * the pure-SQL limit ({@link PureSqlLoop}) measured in the same run, over 1000 aggregates and over
 * 10 hot ones, at batch sizes 10, 100 and 500, with 1 and 4 relays (and 1 and 4 SQL loops); plus
 * the repository's claim and markSent called in a loop with no relay around them, which splits the
 * gap between relay and SQL into "jOOQ" and "relay".
 *
 * <p>Every run starts from a backlog of 90% to 100% of {@code --size}, loaded and analyzed (see
 * {@link #ensureBacklog}); the engines of one configuration run one after the other, in an order
 * that rotates with the repetition. A run ends when the backlog is empty or its time box runs out;
 * the figure is messages marked sent per second either way. Runs start from a fresh table rather
 * than sharing one in short slices: the entries of rows sent since the last vacuum stay in the
 * pending index until a scan may mark them dead, which a snapshot held elsewhere on the server
 * prevents (other sessions here held some for minutes, and autovacuum is off), so each later claim
 * would walk them and the engines would not see the same table.
 */
final class DrainBench {

  /** The aggregate whose handler hangs in {@link Engine#HUNG1}: one of 1000 (and of 10). */
  static final String HUNG_AGGREGATE = "order-1";

  /** The hung handler's maximum handling time: it hangs until the relay interrupts it. */
  static final Duration HUNG_MAX_HANDLING = Duration.ofSeconds(2);

  enum Engine {
    RELAY1("relay1", "1 relay", 1, Driver.RELAY),
    REPO1("repo1", "1 repository loop (claim + markSent, no relay)", 1, Driver.REPOSITORY),
    SQL1("sql1", "1 pure-SQL loop", 1, Driver.SQL),
    RELAY4("relay4", "4 relays", 4, Driver.RELAY),
    SQL4("sql4", "4 pure-SQL loops", 4, Driver.SQL),
    HUNG1(
        "hung1",
        "1 relay, the handler of one aggregate hung until maxHandlingTime (others' rate)",
        1,
        Driver.RELAY);

    final String key;
    final String label;
    final int threads;
    final Driver kind;

    Engine(String key, String label, int threads, Driver kind) {
      this.key = key;
      this.label = label;
      this.threads = threads;
      this.kind = kind;
    }
  }

  /** What drives a drain: the relay, the repository's two calls alone, or hand-written SQL. */
  enum Driver {
    RELAY,
    REPOSITORY,
    SQL
  }

  record Result(long delivered, double seconds, boolean complete) {
    double rate() {
      return delivered / seconds;
    }
  }

  @FunctionalInterface
  interface Cycle {
    int run() throws Exception;
  }

  static String id(Engine e, int aggregates, int batch) {
    return "drain." + e.key + ".agg" + aggregates + ".b" + batch;
  }

  static void run(BenchDatabase db, BenchOptions opts, Recorder r, Path plans) {
    DEADLOCKS.reset();
    DataSource pool = db.pool(4 + 2);
    DSLContext dsl = db.dsl(pool);

    // Each pass: every single-thread engine on every configuration of the grid, on a smaller
    // backlog, untimed: the claim behind held rows and the chained lanes only run on few
    // aggregates, so warming on 1000 aggregates alone left them to the JIT during the measured
    // runs.
    int warmup = Math.min(opts.size(), 20_000);
    String warm =
        JitWarmup.run(
            () -> {
              for (int[] config : opts.drainGrid()) {
                for (Engine e : List.of(Engine.RELAY1, Engine.REPO1, Engine.SQL1)) {
                  load(db, warmup, config[0]);
                  drain(db, pool, dsl, e, config[1], warmup, Math.min(opts.drainMillis(), 5_000));
                }
              }
            });
    long jitBefore = JitWarmup.compilationMillis();
    List<Engine> engines = opts.drainEngines();
    Set<Integer> explained = new LinkedHashSet<>();
    Set<String> timeBoxed = new LinkedHashSet<>();
    int[] loaded = {-1}; // the aggregates of the backlog in the table, -1 for none
    for (int rep = 0; rep < Math.max(opts.reps(), opts.gridReps()); rep++) {
      for (int[] config : opts.drainGrid()) {
        int aggregates = config[0];
        int batch = config[1];
        {
          boolean headline = aggregates == 1000 && batch == 100;
          if (rep >= (headline ? opts.reps() : opts.gridReps())) {
            continue;
          }
          for (Engine e : WriteBench.rotate(engines, rep)) {
            if (e == Engine.HUNG1 && !headline) {
              continue; // the hung-handler figure is asked for one configuration only
            }
            ensureBacklog(db, opts.size(), aggregates, loaded);
            if (batch == 100 && db.kind() == Kind.POSTGRESQL && explained.add(aggregates)) {
              Plans.explainClaim(
                  pool, batch, plans.resolve("postgresql-claim-agg" + aggregates + "-b100.txt"));
            }
            Result res = drain(db, pool, dsl, e, batch, db.pendingCount(), opts.drainMillis());
            if (res.delivered() == 0) {
              throw new IllegalStateException(id(e, aggregates, batch) + " delivered nothing");
            }
            if (!res.complete()) {
              timeBoxed.add(id(e, aggregates, batch));
            }
            r.add(
                id(e, aggregates, batch),
                e.label + ", " + aggregates + " aggregates, batch " + batch,
                "msg/s",
                res.rate());
          }
        }
      }
    }
    for (int[] config : opts.drainGrid()) {
      int aggregates = config[0];
      int batch = config[1];
      {
        boolean headline = aggregates == 1000 && batch == 100;
        r.ratio(
            "drain.relay_vs_sql.agg" + aggregates + ".b" + batch,
            "1 relay / 1 pure-SQL loop, " + aggregates + " aggregates, batch " + batch,
            id(Engine.RELAY1, aggregates, batch),
            id(Engine.SQL1, aggregates, batch),
            aggregates == 1000 ? ">= 0.8" : "> 1 (above the SQL loop)",
            aggregates == 1000 ? 0.8 : 1.0,
            true);
        r.ratio(
            "drain.relay_vs_repo.agg" + aggregates + ".b" + batch,
            "1 relay / its repository calls alone, " + aggregates + " aggregates, batch " + batch,
            id(Engine.RELAY1, aggregates, batch),
            id(Engine.REPO1, aggregates, batch));
        r.ratio(
            "drain.repo_vs_sql.agg" + aggregates + ".b" + batch,
            "repository loop / pure-SQL loop, " + aggregates + " aggregates, batch " + batch,
            id(Engine.REPO1, aggregates, batch),
            id(Engine.SQL1, aggregates, batch));
        r.ratio(
            "drain.relay4_vs_sql4.agg" + aggregates + ".b" + batch,
            "4 relays / 4 pure-SQL loops, " + aggregates + " aggregates, batch " + batch,
            id(Engine.RELAY4, aggregates, batch),
            id(Engine.SQL4, aggregates, batch));
        if (headline) {
          r.ratio(
              "drain.hung_vs_relay.agg1000.b100",
              "other aggregates' rate with one aggregate's handler hung / without, 1 relay,"
                  + " 1000 aggregates, batch 100",
              id(Engine.HUNG1, aggregates, batch),
              id(Engine.RELAY1, aggregates, batch),
              ">= 0.8",
              0.8,
              true);
        }
      }
    }
    for (int batch : new int[] {10, 100, 500}) {
      r.ratio(
          "drain.relay_hot_vs_spread.b" + batch,
          "1 relay, 10 aggregates / the same relay, 1000 aggregates, batch " + batch,
          id(Engine.RELAY1, 10, batch),
          id(Engine.RELAY1, 1000, batch),
          ">= 0.6",
          0.6,
          true);
    }
    r.info(
        "warmup",
        JitWarmup.PASSES
            + " untimed passes of the relay, the repository loop and the SQL loop on every"
            + " configuration of the grid ("
            + warmup
            + " messages each): "
            + warm);
    r.info(
        "jitMillisDuringMeasuredRuns",
        JitWarmup.compilationMillis()
            - jitBefore
            + " ms of JIT compilation while the drains above were measured");
    r.info("deadlockVictimsRetried", DEADLOCKS.sum());
    r.info("backlog", opts.size());
    r.info(
        "repetitions",
        opts.reps() + " for 1000 aggregates batch 100, " + opts.gridReps() + " for the rest");
    r.info("timeBoxSeconds", opts.drainSeconds());
    r.info("timeBoxedRuns", List.copyOf(timeBoxed));
    r.info(
        "relay",
        "OutboxRelay started (its own producer, lanes and completer), defaults except batchSize"
            + " and listen(false): maxRun 10, maxInFlight its default (5 x batchSize, at least 500), handlerConcurrency 4; no-op"
            + " handler; rate = handler completions until the backlog is done or the time box"
            + " ends (the completer marks them sent within milliseconds)");
    r.info(
        "hung",
        "the handler of "
            + HUNG_AGGREGATE
            + " sleeps until interrupted; maxHandlingTime "
            + HUNG_MAX_HANDLING.toMillis()
            + " ms, then the attempt fails and is retried after backoff and hangs again; the rate"
            + " counts the other aggregates' messages only");
    r.info("maxRun", PureSqlLoop.MAX_RUN + " for the relay, the repository loop and the SQL loop");
  }

  /**
   * Reloads (and analyzes) the backlog when it is of other aggregates or a run drained more than a
   * tenth of it: every run starts from 90% to 100% of {@code size} pending messages. A run that
   * drained less (a time-boxed hot-aggregate run) leaves the backlog for the next engine.
   */
  private static void ensureBacklog(BenchDatabase db, int size, int aggregates, int[] loaded) {
    if (loaded[0] != aggregates || db.pendingCount() < size * 0.9) {
      load(db, size, aggregates);
      loaded[0] = aggregates;
    }
  }

  static void load(BenchDatabase db, int size, int aggregates) {
    db.truncate();
    db.loadMessages(size, aggregates, false, "d");
    db.analyze("outbox_message");
  }

  static Result drain(
      BenchDatabase db,
      DataSource pool,
      DSLContext dsl,
      Engine engine,
      int batch,
      long target,
      long timeBoxMillis) {
    if (engine.kind == Driver.RELAY) {
      return RelayDrain.run(db, dsl, engine.threads, batch, engine == Engine.HUNG1, timeBoxMillis);
    }
    List<AutoCloseable> resources = new ArrayList<>();
    List<Cycle> cycles = new ArrayList<>();
    try {
      for (int t = 0; t < engine.threads; t++) {
        switch (engine.kind) {
          case RELAY -> throw new IllegalStateException("started relays run apart");
          case REPOSITORY -> {
            JooqOutboxRepository repository = new JooqOutboxRepository(dsl);
            cycles.add(() -> repositoryCycle(repository, batch));
          }
          case SQL -> {
            PureSqlLoop loop = new PureSqlLoop(db.kind(), pool, batch, PureSqlLoop.MAX_RUN);
            resources.add(loop);
            cycles.add(loop::cycle);
          }
        }
      }
      return runCycles(cycles, target, timeBoxMillis);
    } catch (Exception e) {
      throw new IllegalStateException("drain " + engine + " failed: " + e.getMessage(), e);
    } finally {
      for (AutoCloseable c : resources) {
        try {
          c.close();
        } catch (Exception e) {
          // closing after the measurement; nothing to report
        }
      }
    }
  }

  /** The relay's two database calls with nothing around them: what jOOQ costs over plain SQL. */
  private static int repositoryCycle(JooqOutboxRepository repository, int batch) {
    String token = UUID.randomUUID().toString();
    List<OutboxMessage> claimed =
        repository.claim(
            Set.of(BenchDatabase.TOPIC),
            batch,
            PureSqlLoop.MAX_RUN,
            Duration.ofSeconds(30),
            token,
            Instant.now());
    if (claimed.isEmpty()) {
      return 0;
    }
    List<Long> seqs = new ArrayList<>(claimed.size());
    for (OutboxMessage m : claimed) {
      seqs.add(m.seq());
    }
    return repository.markSent(token, seqs, Instant.now());
  }

  /** Deadlock victims retried by {@link #runCycles} in the current group. */
  static final LongAdder DEADLOCKS = new LongAdder();

  private static boolean isDeadlock(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof java.sql.SQLTransactionRollbackException
          || (t instanceof java.sql.SQLException sql && "40001".equals(sql.getSQLState()))) {
        return true;
      }
    }
    return false;
  }

  /** Runs each cycle on its own thread until {@code target} messages or the time box. */
  static Result runCycles(List<Cycle> cycles, long target, long timeBoxMillis) {
    LongAdder total = new LongAdder();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    long start = System.nanoTime();
    long deadline = start + TimeUnit.MILLISECONDS.toNanos(timeBoxMillis);
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < cycles.size(); t++) {
      Cycle cycle = cycles.get(t);
      Thread thread =
          new Thread(
              () -> {
                try {
                  while (total.sum() < target && System.nanoTime() < deadline) {
                    int n;
                    try {
                      n = cycle.run();
                    } catch (Exception e) {
                      if (!isDeadlock(e)) {
                        throw e;
                      }
                      // The database chose this claim as a deadlock victim: count it and claim
                      // again at once (the relay's own worker would wait a poll interval).
                      DEADLOCKS.increment();
                      continue;
                    }
                    if (n > 0) {
                      total.add(n);
                    } else if (total.sum() < target) {
                      // Others hold every ready message right now (hot aggregates).
                      LockSupport.parkNanos(200_000);
                    }
                  }
                } catch (Throwable e) {
                  failure.compareAndSet(null, e);
                }
              },
              "bench-drain-" + t);
      thread.setDaemon(true);
      threads.add(thread);
      thread.start();
    }
    for (Thread thread : threads) {
      try {
        thread.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    if (failure.get() != null) {
      throw new IllegalStateException(
          "a drain thread failed: " + failure.get().getMessage(), failure.get());
    }
    return new Result(total.sum(), seconds, total.sum() >= target);
  }
}
