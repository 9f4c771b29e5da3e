package dev.jooqoutbox.cli.demo;

import java.io.PrintWriter;
import java.util.Locale;

/**
 * The demo's progress line: written, delivered, retried, dead. On a terminal it redraws one line in
 * place ({@code \r}); elsewhere (a pipe, a CI log) it prints a new line at most once a second, so a
 * log stays readable. A silent bar prints nothing.
 */
final class ProgressBar {

  private static final int WIDTH = 30;
  private static final long LOG_INTERVAL_NANOS = 1_000_000_000L;

  /** How the bar shows itself. */
  enum Mode {
    TERMINAL,
    LINES,
    SILENT
  }

  private final PrintWriter out;
  private final Mode mode;
  private final long total;
  private long lastLineNanos;
  private int lastLength;

  ProgressBar(PrintWriter out, Mode mode, long total) {
    this.out = out;
    this.mode = mode;
    this.total = total;
  }

  /** Shows the counts now (a terminal) or when a second has passed since the last line. */
  void update(DemoCounters counters, long elapsedNanos) {
    switch (mode) {
      case TERMINAL -> {
        String line = render(counters, elapsedNanos);
        // Pad over the rest of a longer previous line.
        String pad = " ".repeat(Math.max(0, lastLength - line.length()));
        out.print("\r" + line + pad);
        out.flush();
        lastLength = line.length();
      }
      case LINES -> {
        if (lastLineNanos == 0 || elapsedNanos - lastLineNanos >= LOG_INTERVAL_NANOS) {
          lastLineNanos = elapsedNanos;
          out.println(render(counters, elapsedNanos));
          out.flush();
        }
      }
      case SILENT -> {}
    }
  }

  /** Shows the final counts and ends the line. */
  void finish(DemoCounters counters, long elapsedNanos) {
    switch (mode) {
      case TERMINAL -> {
        update(counters, elapsedNanos);
        out.println();
        out.flush();
      }
      case LINES -> {
        out.println(render(counters, elapsedNanos));
        out.flush();
      }
      case SILENT -> {}
    }
  }

  String render(DemoCounters counters, long elapsedNanos) {
    long delivered = counters.booked();
    int filled = total == 0 ? WIDTH : (int) Math.min(WIDTH, delivered * WIDTH / total);
    return String.format(
        Locale.ROOT,
        "[%s%s] %3d%%  written %,d/%,d  delivered %,d  retried %,d  dead %,d  %.1fs",
        "#".repeat(filled),
        "-".repeat(WIDTH - filled),
        total == 0 ? 100 : delivered * 100 / total,
        counters.written(),
        total,
        delivered,
        counters.retried(),
        counters.dead(),
        elapsedNanos / 1e9);
  }
}
