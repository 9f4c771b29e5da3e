package dev.jooqoutbox.bench;

import java.io.PrintStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Collects the samples of one figure group on one database (one sample per repetition), pairs them
 * into ratios by repetition, and prints one line per figure and ratio.
 */
final class Recorder {

  /** A goal from the issue: {@code value >= threshold} when {@code atLeast}, else {@code <=}. */
  record Goal(String text, double threshold, boolean atLeast, boolean met) {}

  record Figure(
      String id,
      String label,
      String unit,
      List<Double> samples,
      double median,
      double min,
      double max,
      Goal goal) {}

  record Ratio(
      String id,
      String label,
      String numerator,
      String denominator,
      List<Double> samples,
      double median,
      double min,
      double max,
      Goal goal) {}

  record GroupResult(
      String group,
      String started,
      double seconds,
      String loadBefore,
      String loadAfter,
      String cpuPressureBefore,
      String cpuPressureAfter,
      List<Figure> figures,
      List<Ratio> ratios,
      Map<String, Object> info) {}

  private record GoalSpec(String text, double threshold, boolean atLeast) {}

  private record RatioSpec(
      String id, String label, String numerator, String denominator, GoalSpec goal) {}

  private final String db;
  private final String group;
  private final PrintStream out;
  private final Instant started = Instant.now();
  private final long startNanos = System.nanoTime();
  private final String loadBefore = Machine.loadAverage();
  private final String pressureBefore = Machine.cpuPressure();
  private final Map<String, String[]> meta = new LinkedHashMap<>();
  private final Map<String, List<Double>> samples = new LinkedHashMap<>();
  private final Map<String, GoalSpec> goals = new LinkedHashMap<>();
  private final List<RatioSpec> ratios = new ArrayList<>();
  private final Map<String, Object> info = new LinkedHashMap<>();

  Recorder(String db, String group, PrintStream out) {
    this.db = db;
    this.group = group;
    this.out = out;
  }

  /** Adds one sample (one repetition) of figure {@code id}. */
  void add(String id, String label, String unit, double value) {
    meta.putIfAbsent(id, new String[] {label, unit});
    samples.computeIfAbsent(id, k -> new ArrayList<>()).add(value);
    out.printf(Locale.ROOT, "  [%s %s] sample %-40s %s %s%n", db, group, id, format(value), unit);
  }

  void goal(String id, String text, double threshold, boolean atLeast) {
    goals.put(id, new GoalSpec(text, threshold, atLeast));
  }

  /** A ratio of two figures, sample by sample (repetition {@code i} over repetition {@code i}). */
  void ratio(String id, String label, String numerator, String denominator) {
    ratios.add(new RatioSpec(id, label, numerator, denominator, null));
  }

  void ratio(
      String id,
      String label,
      String numerator,
      String denominator,
      String goalText,
      double threshold,
      boolean atLeast) {
    GoalSpec goal = goalText == null ? null : new GoalSpec(goalText, threshold, atLeast);
    ratios.add(new RatioSpec(id, label, numerator, denominator, goal));
  }

  void info(String key, Object value) {
    info.put(key, value);
  }

  boolean has(String id) {
    return samples.containsKey(id);
  }

  GroupResult finish() {
    List<Figure> figures = new ArrayList<>();
    for (var e : samples.entrySet()) {
      String[] m = meta.get(e.getKey());
      List<Double> s = e.getValue();
      Goal goal = goal(goals.get(e.getKey()), Stats.median(s));
      Figure f =
          new Figure(e.getKey(), m[0], m[1], s, Stats.median(s), Stats.min(s), Stats.max(s), goal);
      figures.add(f);
      out.printf(
          Locale.ROOT,
          "[%s] %-8s %-44s median %10s  min %10s  max %10s %-6s (%d reps)%s%n",
          db,
          group,
          f.id(),
          format(f.median()),
          format(f.min()),
          format(f.max()),
          f.unit(),
          s.size(),
          goalText(goal));
    }
    List<Ratio> ratioResults = new ArrayList<>();
    for (RatioSpec spec : ratios) {
      List<Double> num = samples.get(spec.numerator());
      List<Double> den = samples.get(spec.denominator());
      if (num == null || den == null) {
        continue;
      }
      List<Double> r = new ArrayList<>();
      for (int i = 0; i < Math.min(num.size(), den.size()); i++) {
        r.add(den.get(i) == 0 ? Double.NaN : num.get(i) / den.get(i));
      }
      double median = Stats.median(r);
      Goal goal = goal(spec.goal(), median);
      Ratio ratio =
          new Ratio(
              spec.id(),
              spec.label(),
              spec.numerator(),
              spec.denominator(),
              r,
              median,
              Stats.min(r),
              Stats.max(r),
              goal);
      ratioResults.add(ratio);
      out.printf(
          Locale.ROOT,
          "[%s] %-8s ratio %-38s median %10s  min %10s  max %10s  (%s / %s)%s%n",
          db,
          group,
          ratio.id(),
          format(median),
          format(ratio.min()),
          format(ratio.max()),
          spec.numerator(),
          spec.denominator(),
          goalText(goal));
    }
    return new GroupResult(
        group,
        started.toString(),
        (System.nanoTime() - startNanos) / 1e9,
        loadBefore,
        Machine.loadAverage(),
        pressureBefore,
        Machine.cpuPressure(),
        figures,
        ratioResults,
        info);
  }

  private static Goal goal(GoalSpec spec, double median) {
    if (spec == null) {
      return null;
    }
    boolean met = spec.atLeast() ? median >= spec.threshold() : median <= spec.threshold();
    return new Goal(spec.text(), spec.threshold(), spec.atLeast(), met);
  }

  private static String goalText(Goal goal) {
    return goal == null ? "" : "  goal " + goal.text() + ": " + (goal.met() ? "MET" : "MISSED");
  }

  static String format(double v) {
    if (Double.isNaN(v)) {
      return "n/a";
    }
    double a = Math.abs(v);
    if (a >= 1000) {
      return String.format(Locale.ROOT, "%.0f", v);
    }
    if (a >= 100) {
      return String.format(Locale.ROOT, "%.1f", v);
    }
    if (a >= 10) {
      return String.format(Locale.ROOT, "%.2f", v);
    }
    return String.format(Locale.ROOT, "%.3f", v);
  }
}
