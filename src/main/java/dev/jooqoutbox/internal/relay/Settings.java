package dev.jooqoutbox.internal.relay;

import dev.jooqoutbox.internal.relay.Setting.Count;
import dev.jooqoutbox.internal.relay.Setting.Span;
import java.time.Duration;
import java.util.List;

/**
 * Every relay setting once: its name, its Spring property, its default and its bounds. {@code
 * OutboxRelayBuilder} starts from these defaults and {@link RelayConfig#validate} checks these
 * bounds; the Spring properties start from the same defaults, their metadata is checked against
 * them, and their messages name the properties given here.
 */
public final class Settings {

  public static final Count BATCH_SIZE = new Count("batchSize", "batch-size", 100, 1, 10_000);
  public static final Count MAX_RUN = new Count("maxRun", "max-run", 10, 1, 10_000);

  /** Default: derived from the batch size, see {@link #defaultMaxInFlight}. */
  public static final Count MAX_IN_FLIGHT =
      new Count("maxInFlight", "max-in-flight", null, 1, 1_000_000);

  public static final Count HANDLER_CONCURRENCY =
      new Count("handlerConcurrency", "concurrency", 4, 1, 1_000);
  public static final Count MAX_ATTEMPTS =
      new Count("maxAttempts", "max-attempts", 10, 1, 1_000_000);
  public static final Span POLL_INTERVAL =
      new Span("pollInterval", "poll-interval", Duration.ofMillis(500));
  public static final Span LEASE = new Span("lease", "lease", Duration.ofSeconds(30));
  public static final Span MAX_HANDLING_TIME =
      new Span("maxHandlingTime", "max-handling-time", Duration.ofMinutes(5));
  public static final Span BACKOFF_INITIAL =
      new Span("backoff initial", "backoff.initial", Duration.ofSeconds(1));
  public static final Span BACKOFF_MAX =
      new Span("backoff max", "backoff.max", Duration.ofMinutes(5));
  public static final Span RETENTION = new Span("retention", "retention", Duration.ofDays(7));
  public static final Span PURGE_INTERVAL =
      new Span("purgeInterval", "purge-interval", Duration.ofHours(1));
  public static final Span GAUGE_INTERVAL =
      new Span("gaugeInterval", "gauge-interval", Duration.ofSeconds(5));
  public static final Span SHUTDOWN_TIMEOUT =
      new Span("shutdownTimeout", "shutdown-timeout", Duration.ofSeconds(30));
  public static final Span RECONCILE_INITIAL =
      new Span("reconcileBackoff initial", null, Duration.ofSeconds(10));
  public static final Span RECONCILE_MAX =
      new Span("reconcileBackoff max", null, Duration.ofMinutes(10));

  /** Every setting above, in the order the builder checks them. */
  public static final List<Setting> ALL =
      List.of(
          BATCH_SIZE,
          MAX_RUN,
          MAX_IN_FLIGHT,
          POLL_INTERVAL,
          LEASE,
          MAX_ATTEMPTS,
          BACKOFF_INITIAL,
          BACKOFF_MAX,
          RECONCILE_INITIAL,
          RECONCILE_MAX,
          RETENTION,
          PURGE_INTERVAL,
          HANDLER_CONCURRENCY,
          MAX_HANDLING_TIME,
          GAUGE_INTERVAL,
          SHUTDOWN_TIMEOUT);

  private Settings() {}

  /** The default of {@link #MAX_IN_FLIGHT}: five batches, at least 500. */
  public static int defaultMaxInFlight(int batchSize) {
    return Math.max(500, 5 * batchSize);
  }
}
