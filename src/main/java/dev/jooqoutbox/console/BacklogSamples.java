package dev.jooqoutbox.console;

import dev.jooqoutbox.OutboxAdmin;
import dev.jooqoutbox.OutboxStats;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The counts the console shows, as it samples them while it runs: {@link
 * OutboxAdmin#statsByTopic()} once every interval on a thread of its own, and again right after
 * each action of the console. The overview answers from the latest sample (reading every row takes
 * about 200 ms at a million messages on PostgreSQL; a page should not), and the chart from the
 * samples of the last hour (nothing before the console started).
 */
final class BacklogSamples implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(OutboxConsole.class);
  private static final Duration SPAN = Duration.ofHours(1);

  /** One sample: when, and the counts then. */
  record Sample(Instant at, long pending, long dead, long unknown, long sentAwaitingPurge) {}

  /** The latest counts per topic, and when they were read. */
  record Latest(Instant at, Map<String, OutboxStats> byTopic) {}

  private final OutboxAdmin admin;
  private final Clock clock;
  private final Duration every;
  private final Deque<Sample> samples = new ArrayDeque<>();
  private Latest latest;
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(ConsoleApi.daemonThreads());

  BacklogSamples(OutboxAdmin admin, Clock clock, Duration every) {
    this.admin = admin;
    checkEvery(every);
    this.clock = clock;
    this.every = every;
  }

  /**
   * Refuses an interval outside 1 s to 5 min: shorter would read the counts more often than a chart
   * of an hour needs, longer would leave it with a dozen points.
   */
  static Duration checkEvery(Duration every) {
    if (every == null
        || every.compareTo(Duration.ofSeconds(1)) < 0
        || every.compareTo(Duration.ofMinutes(5)) > 0) {
      throw new IllegalArgumentException("sampleEvery must be between 1 s and 5 min");
    }
    return every;
  }

  void start() {
    // The first read is the first page's (latest()), so a console started on a busy outbox does
    // not show the counts of a sample taken before anyone looked.
    long ms = every.toMillis();
    timer.scheduleWithFixedDelay(this::sample, ms, ms, TimeUnit.MILLISECONDS);
  }

  /** Reads the counts now; a failure is logged and leaves the previous sample in place. */
  void sample() {
    try {
      read();
    } catch (RuntimeException e) {
      log.warn("outbox console could not sample the backlog", e);
    }
  }

  /** The latest counts; read now when there are none yet (a failure then is the caller's). */
  Latest latest() {
    synchronized (this) {
      if (latest != null) {
        return latest;
      }
    }
    return read();
  }

  private Latest read() {
    Instant at = clock.instant();
    Map<String, OutboxStats> byTopic = admin.statsByTopic();
    OutboxStats s = OutboxStats.sum(byTopic.values());
    Latest read = new Latest(at, byTopic);
    add(new Sample(at, s.pending(), s.dead(), s.unknown(), s.sentAwaitingPurge()), read);
    return read;
  }

  private synchronized void add(Sample sample, Latest read) {
    if (latest == null || !read.at().isBefore(latest.at())) {
      latest = read;
    }
    samples.addLast(sample);
    Instant oldest = sample.at().minus(SPAN);
    while (samples.peekFirst() != null && samples.peekFirst().at().isBefore(oldest)) {
      samples.removeFirst();
    }
  }

  /** The samples of the last hour, oldest first. */
  synchronized List<Sample> lastHour() {
    return List.copyOf(samples);
  }

  Duration every() {
    return every;
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
