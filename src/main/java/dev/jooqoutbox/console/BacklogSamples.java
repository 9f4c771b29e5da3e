package dev.jooqoutbox.console;

import dev.jooqoutbox.OutboxAdmin;
import dev.jooqoutbox.OutboxStats;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The backlog over the last hour, as the console samples it while it runs (nothing before it
 * started): the counts of {@link OutboxAdmin#stats()} once every interval, on a thread of its own.
 */
final class BacklogSamples implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(OutboxConsole.class);
  private static final Duration SPAN = Duration.ofHours(1);

  /** One sample: when, and the counts then. */
  record Sample(Instant at, long pending, long dead, long unknown, long sentAwaitingPurge) {}

  private final OutboxAdmin admin;
  private final Clock clock;
  private final Duration every;
  private final Deque<Sample> samples = new ArrayDeque<>();
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
    timer.scheduleWithFixedDelay(this::sample, 0, every.toMillis(), TimeUnit.MILLISECONDS);
  }

  void sample() {
    try {
      OutboxStats s = admin.stats();
      add(new Sample(clock.instant(), s.pending(), s.dead(), s.unknown(), s.sentAwaitingPurge()));
    } catch (RuntimeException e) {
      log.warn("outbox console could not sample the backlog", e);
    }
  }

  private synchronized void add(Sample sample) {
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
