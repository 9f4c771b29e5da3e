package dev.jooqoutbox.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

class DemoCountersTest {

  @Test
  void percentilesAreNearestRank() {
    long[] sorted = new long[100];
    for (int i = 0; i < sorted.length; i++) {
      sorted[i] = i + 1;
    }
    assertThat(DemoCounters.percentile(sorted, 50)).isEqualTo(50);
    assertThat(DemoCounters.percentile(sorted, 95)).isEqualTo(95);
    assertThat(DemoCounters.percentile(sorted, 99)).isEqualTo(99);
    assertThat(DemoCounters.percentile(sorted, 100)).isEqualTo(100);
    assertThat(DemoCounters.percentile(new long[] {7}, 99)).isEqualTo(7);
    assertThat(DemoCounters.percentile(new long[0], 50)).isZero();
  }

  @Test
  void latencyIsCommitToHandlerStartOfTheBookedOrdersOnly() {
    DemoCounters counters = new DemoCounters(3);
    counters.committing(1);
    counters.committing(2);
    counters.countBooked(2, System.nanoTime() + 5_000_000);

    long[] latencies = counters.sortedLatencies();
    assertThat(latencies).hasSize(1);
    assertThat(latencies[0]).isGreaterThanOrEqualTo(5_000_000);
    assertThat(counters.booked()).isEqualTo(1);
  }

  @Test
  void progressPrintsAtMostALineASecondWithoutATerminal() {
    StringWriter text = new StringWriter();
    DemoCounters counters = new DemoCounters(10);
    ProgressBar bar = new ProgressBar(new PrintWriter(text), ProgressBar.Mode.LINES, 10);

    bar.update(counters, 100_000_000L);
    bar.update(counters, 600_000_000L);
    bar.update(counters, 1_200_000_000L);
    bar.finish(counters, 1_300_000_000L);

    assertThat(text.toString().lines()).hasSize(3);
    assertThat(text.toString())
        .contains("[------------------------------]   0%  written 0/10  delivered 0");
  }

  @Test
  void progressRedrawsOneLineOnATerminal() {
    StringWriter text = new StringWriter();
    DemoCounters counters = new DemoCounters(4);
    ProgressBar bar = new ProgressBar(new PrintWriter(text), ProgressBar.Mode.TERMINAL, 4);

    bar.update(counters, 1);
    counters.committing(1);
    counters.countWritten();
    counters.countBooked(1, System.nanoTime());
    bar.finish(counters, 2);

    assertThat(text.toString()).startsWith("\r[").contains("\r[#######").endsWith("\n");
    assertThat(text.toString().chars().filter(c -> c == '\n').count()).isEqualTo(1);
  }
}
