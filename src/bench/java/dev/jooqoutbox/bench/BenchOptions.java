package dev.jooqoutbox.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** The command line of {@link BenchMain}; see {@link #USAGE}. */
record BenchOptions(
    List<String> dbs,
    int size,
    int reps,
    int gridReps,
    Path out,
    boolean smoke,
    Set<String> groups,
    double writeSeconds,
    double drainSeconds,
    List<Integer> sentRows,
    int pending,
    double latencySeconds,
    int rate,
    int gruelboxSize,
    int memorySize,
    List<int[]> drainGrid,
    List<DrainBench.Engine> drainEngines,
    List<Integer> deepSizes,
    int deepMaxInFlight,
    int publishSize,
    int horizonSize,
    int horizonReps,
    int horizonRate,
    double horizonSeconds,
    boolean horizonWrites,
    int purgeSent,
    int purgeSize,
    int purgeReps) {

  static final List<String> ALL_GROUPS =
      List.of(
          "write",
          "notify",
          "drain",
          "claim",
          "latency",
          "gruelbox",
          "memory",
          "deep",
          "publish",
          "horizon",
          "purge",
          "eventlog");

  static final String USAGE =
      """
      usage: BenchMain --db URL [--db URL ...] [options]
        --db URL              jdbc:postgresql://..., jdbc:mariadb://..., or jdbc:sqlite: (a temp file);
                              each run uses its own schema / database / file and drops it at the end
        --size N              drain backlog, messages (default 100000)
        --reps N              repetitions of every figure (default 3)
        --grid-reps N         repetitions of the drain grid outside its headline row
                              (1000 aggregates, batch 100, which gets --reps; default 1)
        --out DIR             results.json, results.md, chart.svg, plans/ (default docs/bench)
        --only g1,g2          groups to run: write,notify,drain,claim,latency,gruelbox,memory,deep,
                              publish,horizon,purge
        --write-seconds S     measuring window of one write variant (default 5)
        --drain-seconds S     time box of one drain run (default 8)
        --drain-grid a:b,...  drain configurations, aggregates:batch
                              (default 1000:10,1000:100,1000:500,10:10,10:100,10:500)
        --drain-engines e,... relay1,repo1,sql1,relay4,sql4,hung1 (default all)
        --sent a,b,c          sent rows awaiting purge for the claim figure (default 0,100000,1000000)
        --pending N           pending rows for the claim figure (default 10000)
        --latency-seconds S   steady-rate window of the latency figure (default 10)
        --rate R              messages per second of the latency figure (default 1000)
        --gruelbox-size N     backlog of the drain comparison with gruelbox (default 30000)
        --memory-size N       backlog the -Xmx128m child drains (default 1000000)
        --deep-size N,...     backlogs of the deep drain, 1000 aggregates (default 1000000)
        --deep-max-in-flight N  the deep drain's relay maxInFlight (a diagnostic; default: the
                              relay's default)
        --publish-size N      messages per run of the publish figure, per broker (default 20000);
                              needs RabbitMQ on 127.0.0.1:5672 and NATS JetStream on :4222
        --horizon-size N      backlog of the held-horizon drain, 1000 aggregates (default 200000)
        --horizon-reps N      repetitions of that drain, each with and without the held horizon
                              (default 2)
        --horizon-rate R      messages per second written in the held-horizon steady run
                              (default 2000)
        --horizon-seconds S   length of the held-horizon steady run (default 600)
        --horizon-holder H    what holds the horizon: snapshot (a REPEATABLE READ transaction
                              that only read, the default) or writer (one that also wrote a row
                              of another table, so it has a transaction id)
        --purge-sent N        sent rows the purge figure deletes (default 1100000)
        --purge-size N        backlog the relay drains while they are purged (default 200000)
        --purge-reps N        repetitions of the purge figure (default 2)
        --smoke               tiny sizes and windows: checks that every figure runs, in seconds
      """;

  static BenchOptions parse(String[] args) {
    List<String> dbs = new ArrayList<>();
    int size = 100_000;
    int reps = 3;
    int gridReps = 1;
    Path out = Path.of("docs/bench");
    boolean smoke = false;
    Set<String> groups = new LinkedHashSet<>(ALL_GROUPS);
    double writeSeconds = 5;
    double drainSeconds = 8;
    List<Integer> sent = List.of(0, 100_000, 1_000_000);
    int pending = 10_000;
    double latencySeconds = 10;
    int rate = 1000;
    int gruelboxSize = 30_000;
    int memorySize = 1_000_000;
    List<int[]> drainGrid = grid("1000:10,1000:100,1000:500,10:10,10:100,10:500");
    List<DrainBench.Engine> drainEngines = List.of(DrainBench.Engine.values());
    List<Integer> deepSizes = List.of(1_000_000);
    int deepMaxInFlight = 0; // 0: the relay's default
    int publishSize = 20_000;
    int horizonSize = 200_000;
    int horizonReps = 2;
    int horizonRate = 2_000;
    double horizonSeconds = 600;
    boolean horizonWrites = false;
    int purgeSent = 1_100_000;
    int purgeSize = 200_000;
    int purgeReps = 2;
    Set<String> explicit = new LinkedHashSet<>();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (a.isBlank()) {
        continue;
      }
      if (a.equals("--smoke")) {
        smoke = true;
        continue;
      }
      if (a.equals("--help") || a.equals("-h")) {
        throw new IllegalArgumentException("");
      }
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException(a + " needs a value");
      }
      String v = args[++i];
      explicit.add(a);
      switch (a) {
        case "--db" -> dbs.add(v);
        case "--size" -> size = positive(a, v);
        case "--reps" -> reps = positive(a, v);
        case "--grid-reps" -> gridReps = positive(a, v);
        case "--out" -> out = Path.of(v);
        case "--only" -> {
          groups = new LinkedHashSet<>();
          for (String g : v.split(",")) {
            if (!ALL_GROUPS.contains(g.trim())) {
              throw new IllegalArgumentException("--only: unknown group " + g);
            }
            groups.add(g.trim());
          }
        }
        case "--write-seconds" -> writeSeconds = seconds(a, v);
        case "--drain-seconds" -> drainSeconds = seconds(a, v);
        case "--sent" -> {
          List<Integer> list = new ArrayList<>();
          for (String s : v.split(",")) {
            list.add(nonNegative(a, s.trim()));
          }
          sent = List.copyOf(list);
        }
        case "--pending" -> pending = positive(a, v);
        case "--latency-seconds" -> latencySeconds = seconds(a, v);
        case "--rate" -> rate = positive(a, v);
        case "--gruelbox-size" -> gruelboxSize = positive(a, v);
        case "--memory-size" -> memorySize = positive(a, v);
        case "--drain-grid" -> drainGrid = grid(v);
        case "--drain-engines" -> drainEngines = engines(v);
        case "--deep-max-in-flight" -> deepMaxInFlight = positive(a, v);
        case "--deep-size" -> {
          List<Integer> list = new ArrayList<>();
          for (String d : v.split(",")) {
            list.add(positive(a, d.trim()));
          }
          deepSizes = List.copyOf(list);
        }
        case "--publish-size" -> publishSize = positive(a, v);
        case "--horizon-size" -> horizonSize = positive(a, v);
        case "--horizon-reps" -> horizonReps = positive(a, v);
        case "--horizon-rate" -> horizonRate = positive(a, v);
        case "--horizon-seconds" -> horizonSeconds = seconds(a, v);
        case "--horizon-holder" -> horizonWrites = holder(v);
        case "--purge-sent" -> purgeSent = positive(a, v);
        case "--purge-size" -> purgeSize = positive(a, v);
        case "--purge-reps" -> purgeReps = positive(a, v);
        default -> throw new IllegalArgumentException("unknown option " + a);
      }
    }
    if (dbs.isEmpty()) {
      throw new IllegalArgumentException("give at least one --db URL");
    }
    if (smoke) {
      // Tiny defaults; anything given explicitly still wins.
      size = explicit.contains("--size") ? size : 2_000;
      reps = explicit.contains("--reps") ? reps : 1;
      writeSeconds = explicit.contains("--write-seconds") ? writeSeconds : 0.5;
      drainSeconds = explicit.contains("--drain-seconds") ? drainSeconds : 0.5;
      sent = explicit.contains("--sent") ? sent : List.of(0, 5_000);
      pending = explicit.contains("--pending") ? pending : 500;
      latencySeconds = explicit.contains("--latency-seconds") ? latencySeconds : 1;
      rate = explicit.contains("--rate") ? rate : 200;
      gruelboxSize = explicit.contains("--gruelbox-size") ? gruelboxSize : 300;
      memorySize = explicit.contains("--memory-size") ? memorySize : 3_000;
      deepSizes = explicit.contains("--deep-size") ? deepSizes : List.of(3_000);
      publishSize = explicit.contains("--publish-size") ? publishSize : 500;
      horizonSize = explicit.contains("--horizon-size") ? horizonSize : 2_000;
      horizonReps = explicit.contains("--horizon-reps") ? horizonReps : 1;
      horizonSeconds = explicit.contains("--horizon-seconds") ? horizonSeconds : 5;
      purgeSent = explicit.contains("--purge-sent") ? purgeSent : 5_000;
      purgeSize = explicit.contains("--purge-size") ? purgeSize : 2_000;
      purgeReps = explicit.contains("--purge-reps") ? purgeReps : 1;
    }
    return new BenchOptions(
        List.copyOf(dbs),
        size,
        reps,
        gridReps,
        out,
        smoke,
        Set.copyOf(groups),
        writeSeconds,
        drainSeconds,
        sent,
        pending,
        latencySeconds,
        rate,
        gruelboxSize,
        memorySize,
        List.copyOf(drainGrid),
        List.copyOf(drainEngines),
        deepSizes,
        deepMaxInFlight,
        publishSize,
        horizonSize,
        horizonReps,
        horizonRate,
        horizonSeconds,
        horizonWrites,
        purgeSent,
        purgeSize,
        purgeReps);
  }

  /** Whether the transaction that holds the horizon also writes. */
  private static boolean holder(String value) {
    return switch (value) {
      case "snapshot" -> false;
      case "writer" -> true;
      default ->
          throw new IllegalArgumentException("--horizon-holder: snapshot or writer, was " + value);
    };
  }

  private static List<int[]> grid(String value) {
    List<int[]> grid = new ArrayList<>();
    for (String pair : value.split(",")) {
      String[] ab = pair.trim().split(":");
      if (ab.length != 2) {
        throw new IllegalArgumentException(
            "--drain-grid needs aggregates:batch pairs, was " + pair);
      }
      grid.add(new int[] {positive("--drain-grid", ab[0]), positive("--drain-grid", ab[1])});
    }
    return grid;
  }

  private static List<DrainBench.Engine> engines(String value) {
    List<DrainBench.Engine> engines = new ArrayList<>();
    for (String key : value.split(",")) {
      DrainBench.Engine found = null;
      for (DrainBench.Engine e : DrainBench.Engine.values()) {
        if (e.key.equals(key.trim())) {
          found = e;
        }
      }
      if (found == null) {
        throw new IllegalArgumentException("--drain-engines: unknown engine " + key);
      }
      engines.add(found);
    }
    return engines;
  }

  boolean runs(String group) {
    return groups.contains(group);
  }

  /** Warm-up and measuring windows in milliseconds. */
  long writeMillis() {
    return Math.round(writeSeconds * 1000);
  }

  long drainMillis() {
    return Math.round(drainSeconds * 1000);
  }

  long latencyMillis() {
    return Math.round(latencySeconds * 1000);
  }

  /** Claims measured per backlog and repetition in the claim-latency figure. */
  int claimsPerRep() {
    return smoke ? 20 : 100;
  }

  private static int positive(String option, String value) {
    int n = nonNegative(option, value);
    if (n == 0) {
      throw new IllegalArgumentException(option + " must be positive, was " + value);
    }
    return n;
  }

  private static int nonNegative(String option, String value) {
    try {
      int n = Integer.parseInt(value.replace("_", ""));
      if (n < 0) {
        throw new IllegalArgumentException(option + " must not be negative, was " + value);
      }
      return n;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(option + " needs a whole number, was " + value, e);
    }
  }

  private static double seconds(String option, String value) {
    try {
      double s = Double.parseDouble(value);
      if (!(s > 0)) {
        throw new IllegalArgumentException(option + " must be positive, was " + value);
      }
      return s;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(option + " needs a number of seconds, was " + value, e);
    }
  }
}
