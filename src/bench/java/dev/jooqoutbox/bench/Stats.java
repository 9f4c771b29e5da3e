package dev.jooqoutbox.bench;

import java.util.Arrays;
import java.util.List;

/** Order statistics over samples; NaN for none. */
final class Stats {

  private Stats() {}

  static double median(List<Double> values) {
    return percentile(values, 50);
  }

  static double min(List<Double> values) {
    return values.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
  }

  static double max(List<Double> values) {
    return values.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
  }

  /** The {@code p}-th percentile with linear interpolation between closest ranks. */
  static double percentile(List<Double> values, double p) {
    double[] a = values.stream().mapToDouble(Double::doubleValue).toArray();
    return percentile(a, p);
  }

  static double percentile(double[] values, double p) {
    if (values.length == 0) {
      return Double.NaN;
    }
    double[] a = values.clone();
    Arrays.sort(a);
    double rank = p / 100.0 * (a.length - 1);
    int lo = (int) Math.floor(rank);
    int hi = (int) Math.ceil(rank);
    return a[lo] + (a[hi] - a[lo]) * (rank - lo);
  }
}
