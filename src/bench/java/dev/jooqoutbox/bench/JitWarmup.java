package dev.jooqoutbox.bench;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.Locale;

/**
 * The drain's warm-up: a fixed number of untimed passes, each timed with the JIT compilation it
 * took, so that the results show how warm the measured runs were. One pass on 1000 aggregates alone
 * left the compiler threads at 30 % to 40 % of the 2 cores through the measured 10-aggregate drains
 * (17.5 s of compiler CPU in a 45 s run). The JIT does not go quiet in one JVM that alternates
 * engines: passes 3 and 4 still compiled 2.5 s to 4 s in 11 s, most of it code made not entrant
 * when the next engine changed the type profiles (298 such events after the first 45 s, in pgjdbc
 * and jOOQ's rendering), so more passes buy little.
 */
final class JitWarmup {

  static final int PASSES = 2;

  private JitWarmup() {}

  /** Runs {@code pass} {@link #PASSES} times and describes how much each compiled. */
  static String run(Runnable pass) {
    StringBuilder report = new StringBuilder();
    for (int n = 1; n <= PASSES; n++) {
      long jit = compilationMillis();
      long start = System.nanoTime();
      pass.run();
      long took = (System.nanoTime() - start) / 1_000_000;
      long compiled = compilationMillis() - jit;
      System.out.printf(
          Locale.ROOT, "   warm-up pass %d: %d ms, %d ms of JIT compilation%n", n, took, compiled);
      report
          .append(n == 1 ? "" : "; ")
          .append(String.format(Locale.ROOT, "pass %d: %d ms, %d ms JIT", n, took, compiled));
    }
    return report.toString();
  }

  /**
   * The JIT's accumulated compilation time in milliseconds (of all compiler threads), or 0 where
   * the JVM does not report it.
   */
  static long compilationMillis() {
    CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
    return jit != null && jit.isCompilationTimeMonitoringSupported()
        ? jit.getTotalCompilationTime()
        : 0;
  }
}
