package dev.jooqoutbox.bench;

import dev.jooqoutbox.bench.BenchDatabase.Kind;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The benchmark harness (docs/benchmarks.md). Runs the figure groups on each {@code --db}, prints
 * one line per figure and ratio, and merges the results into {@code results.json}, {@code
 * results.md} and {@code chart.svg} in {@code --out}.
 *
 * <pre>
 * mvn -Pbench -Dbuild.dir=target-bench verify \
 *   -Dbench.args="--db jdbc:postgresql://127.0.0.1:5432/test?user=postgres --reps 3"
 * </pre>
 *
 * <p>Exits 0 when every group ran, 1 when one failed (its database is still dropped), 2 on a bad
 * command line.
 */
public final class BenchMain {

  /** Groups that measure something only PostgreSQL has, or that the issue asks of it alone. */
  private static final Set<String> POSTGRES_ONLY =
      Set.of("notify", "gruelbox", "memory", "deep", "publish", "horizon", "purge", "eventlog");

  private BenchMain() {}

  public static void main(String[] args) {
    BenchOptions opts;
    try {
      opts = BenchOptions.parse(args);
    } catch (IllegalArgumentException e) {
      if (!e.getMessage().isEmpty()) {
        System.err.println(e.getMessage());
      }
      System.err.print(BenchOptions.USAGE);
      System.exit(2);
      return;
    }
    // Liquibase logs each changeset through java.util.logging; only its warnings matter here.
    java.util.logging.Logger.getLogger("").setLevel(java.util.logging.Level.WARNING);
    for (var handler : java.util.logging.Logger.getLogger("").getHandlers()) {
      handler.setLevel(java.util.logging.Level.WARNING);
    }
    Runtime.getRuntime()
        .addShutdownHook(new Thread(BenchDatabase::closeAll, "bench-drop-databases"));
    String argLine = String.join(" ", args).trim();
    Map<String, Object> machine = Machine.describe();
    System.out.println("jooq-outbox benchmarks: " + machine);
    System.out.println("arguments: " + argLine);
    ResultsFile results = new ResultsFile(opts.out());
    results.machine(machine);
    Path plans = opts.out().resolve("plans");
    boolean failed = false;
    long start = System.nanoTime();
    for (String url : opts.dbs()) {
      Kind kind = Kind.of(url);
      String db = kind.label();
      try (BenchDatabase database = BenchDatabase.create(url)) {
        results.database(db, database.serverVersion(), database.settings());
        System.out.println("== " + db + ": " + database.serverVersion());
        System.out.println("   settings " + database.settings());
        for (String group : BenchOptions.ALL_GROUPS) {
          if (!opts.runs(group) || (POSTGRES_ONLY.contains(group) && kind != Kind.POSTGRESQL)) {
            continue;
          }
          System.out.printf(Locale.ROOT, "-- %s %s (load %s)%n", db, group, Machine.loadAverage());
          Recorder r = new Recorder(db, group, System.out);
          long t0 = System.nanoTime();
          switch (group) {
            case "write" -> WriteBench.runWrite(database, opts, r);
            case "notify" -> WriteBench.runNotify(database, opts, r);
            case "drain" -> DrainBench.run(database, opts, r, plans);
            case "claim" -> ClaimLatencyBench.run(url, opts, r, plans);
            case "latency" -> LatencyBench.run(database, opts, r);
            case "gruelbox" -> GruelboxBench.run(database, opts, r);
            case "memory" -> MemoryBench.run(database, opts, r);
            case "deep" -> DeepDrainBench.run(database, opts, r);
            case "publish" -> PublishBench.run(database, opts, r);
            case "horizon" -> HorizonBench.run(database, opts, r);
            case "purge" -> PurgeBench.run(database, opts, r);
            case "eventlog" -> EventLogBench.run(database, opts, r);
            default -> throw new IllegalStateException(group);
          }
          // Each group keeps the commit it measured: a later run overwrites the machine block.
          r.info("gitHead", machine.get("gitHead"));
          r.info("uncommittedInSrcMain", machine.get("uncommittedInSrcMain"));
          results.group(db, r.finish(), argLine);
          results.write();
          System.out.printf(
              Locale.ROOT, "-- %s %s done in %.0f s%n", db, group, (System.nanoTime() - t0) / 1e9);
        }
      } catch (RuntimeException e) {
        failed = true;
        System.err.println("benchmark on " + db + " failed:");
        e.printStackTrace();
      }
    }
    results.write();
    SvgChart.write(results.root(), opts.out().resolve("chart.svg"));
    System.out.printf(
        Locale.ROOT,
        "results in %s (results.json, results.md, chart.svg) after %.0f s%n",
        opts.out(),
        (System.nanoTime() - start) / 1e9);
    System.exit(failed ? 1 : 0);
  }
}
