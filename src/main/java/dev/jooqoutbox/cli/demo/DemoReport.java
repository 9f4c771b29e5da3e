package dev.jooqoutbox.cli.demo;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * The end of a demo run: throughput, latency, what went wrong on the way, and the invariants read
 * from the database. {@link #passed()} is the verdict.
 *
 * @param written orders placed (each with its message)
 * @param writtenNanos from the start until the last writer finished
 * @param booked orders the ledger booked, counted by the handlers
 * @param drainedNanos from the start until nothing was pending; 0 when the run timed out
 * @param latencies commit to booking handler start, nanoseconds, sorted
 * @param peakBacklog the most orders written and not yet booked, sampled while it ran
 * @param timedOut the timeout that ended the run, or null
 */
record DemoReport(
    DemoSettings settings,
    long written,
    long writtenNanos,
    long booked,
    long drainedNanos,
    long[] latencies,
    long peakBacklog,
    long retried,
    long dead,
    long duplicatesDropped,
    Duration timedOut,
    List<InvariantCheck.Result> invariants) {

  boolean passed() {
    return timedOut == null && invariants.stream().allMatch(InvariantCheck.Result::passed);
  }

  void print(PrintWriter out) {
    out.println();
    out.println("Summary");
    out.printf(
        Locale.ROOT,
        "  written     %,d orders with their messages in %s  (%s/s)%n",
        written,
        seconds(writtenNanos),
        perSecond(written, writtenNanos));
    if (timedOut == null) {
      out.printf(
          Locale.ROOT,
          "  delivered   %,d bookings in %s  (%s/s)%n",
          booked,
          seconds(drainedNanos),
          perSecond(booked, drainedNanos));
    } else {
      out.printf(
          Locale.ROOT,
          "  delivered   %,d bookings, then the timeout of %ds ended the run%n",
          booked,
          timedOut.toSeconds());
    }
    out.printf(
        Locale.ROOT,
        "  latency     commit to booking handler start: p50 %s  p95 %s  p99 %s  max %s%n",
        millis(DemoCounters.percentile(latencies, 50)),
        millis(DemoCounters.percentile(latencies, 95)),
        millis(DemoCounters.percentile(latencies, 99)),
        millis(latencies.length == 0 ? 0 : latencies[latencies.length - 1]));
    out.printf(
        Locale.ROOT,
        "  backlog     at most %,d orders written and not yet booked%s%n",
        peakBacklog,
        peakBacklog > 100 && settings.rate() == 0
            ? ": the writers ran ahead, so the latency is mostly queueing (try --rate)"
            : "");
    out.printf(
        Locale.ROOT,
        "  retries     %,d failed deliveries retried (fail rate %s, duplicate rate %s)%n",
        retried,
        rate(settings.failRate()),
        rate(settings.duplicateRate()));
    out.printf(Locale.ROOT, "  dead        %,d dead-lettered%n", dead);
    out.printf(Locale.ROOT, "  duplicates  %,d dropped by the inbox%n", duplicatesDropped);
    out.println();
    out.println("Invariants, checked in the database");
    for (InvariantCheck.Result r : invariants) {
      out.printf(Locale.ROOT, "  %s  %s: %s%n", r.passed() ? "PASS" : "FAIL", r.name(), r.detail());
    }
    out.println();
    out.println(passed() ? "PASS" : "FAIL");
  }

  private static String seconds(long nanos) {
    return String.format(Locale.ROOT, "%.2f s", nanos / 1e9);
  }

  private static String perSecond(long count, long nanos) {
    return nanos <= 0 ? "-" : String.format(Locale.ROOT, "%,.0f", count / (nanos / 1e9));
  }

  private static String millis(long nanos) {
    return String.format(Locale.ROOT, "%.1f ms", nanos / 1e6);
  }

  private static String rate(double rate) {
    return String.format(Locale.ROOT, "%.2f", rate);
  }
}
