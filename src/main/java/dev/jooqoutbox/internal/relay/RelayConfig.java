package dev.jooqoutbox.internal.relay;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.jooqoutbox.relay.AsyncOutboxHandler;
import dev.jooqoutbox.relay.OutboxReconciler;
import dev.jooqoutbox.relay.RetryPolicy;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.function.Supplier;
import org.jooq.DSLContext;

/**
 * A relay's settings, checked: {@link #validate} names the first invalid one. Built by {@code
 * OutboxRelayBuilder}, which documents each setting; {@link Settings} holds their defaults and
 * bounds. Grouped by what each part of the relay needs, so that no constructor takes more than a
 * few values of one type.
 *
 * @param claiming what the producer claims, and for how long
 * @param handling how handlers run
 * @param retries the default retry policy and each topic's own
 * @param upkeep the purge and the gauges
 * @param reconciling the reconcilers of outcome-unknown messages
 * @param meterRegistry a Micrometer {@code MeterRegistry}, or null; typed {@code Object} so that
 *     Micrometer stays optional
 * @param openTelemetry an {@code io.opentelemetry.api.OpenTelemetry}, or null for the global one
 *     when the API is present; typed {@code Object} so that OpenTelemetry stays optional
 * @param timers where the heartbeat and the watchdog run and the time they measure; null for
 *     threads of the relay's own ({@link RelayTimers#onThreads})
 */
public record RelayConfig(
    DSLContext dsl,
    Map<String, AsyncOutboxHandler> handlers,
    Claiming claiming,
    Handling handling,
    Retries retries,
    Upkeep upkeep,
    Reconciling reconciling,
    Clock clock,
    ObjectMapper mapper,
    Object meterRegistry,
    Object openTelemetry,
    RelayTimers timers) {

  /**
   * What the producer claims and for how long it owns it.
   *
   * @param listen on PostgreSQL, whether to wake at each notifying commit
   * @param claimTokens the source of each claim's unique token
   */
  public record Claiming(
      int batchSize,
      int maxRun,
      int maxInFlight,
      Duration pollInterval,
      Duration lease,
      boolean listen,
      Supplier<String> claimTokens) {}

  /** How handlers run: on how many threads, for how long at most, and the wait at close. */
  public record Handling(int concurrency, Duration maxHandlingTime, Duration shutdownTimeout) {}

  /**
   * The retry policy of topics without one of their own ({@code defaults}) and each topic's own.
   */
  public record Retries(RetryPolicy defaults, Map<String, RetryPolicy> perTopic) {
    public Retries {
      perTopic = Map.copyOf(perTopic);
    }
  }

  /** How long sent rows are kept, how often the purge runs, how often the gauges are read. */
  public record Upkeep(Duration retention, Duration purgeInterval, Duration gaugeInterval) {}

  /**
   * The reconciler of each topic that has one, and when they are asked about a message.
   *
   * @param initial the first wait before a reconciler is asked about a message
   * @param max the longest wait between two questions about one message
   */
  public record Reconciling(
      Map<String, OutboxReconciler> reconcilers, Duration initial, Duration max) {
    public Reconciling {
      reconcilers = Map.copyOf(reconcilers);
    }
  }

  public RelayConfig {
    handlers = Map.copyOf(handlers);
  }

  /** The retry policy of {@code topic}: its own, or the relay's defaults. */
  public RetryPolicy retryPolicy(String topic) {
    RetryPolicy own = retries.perTopic().get(topic);
    return own != null ? own : retries.defaults();
  }

  /**
   * @throws IllegalArgumentException naming the first invalid setting and its value: an {@link
   *     InvalidSettingException} for a setting out of its bounds ({@link Settings})
   */
  public RelayConfig validate() {
    if (handlers.isEmpty()) {
      throw new IllegalArgumentException("handlers: register at least one handler(topic, ...)");
    }
    Settings.BATCH_SIZE.check(claiming.batchSize());
    Settings.MAX_RUN.check(claiming.maxRun());
    Settings.MAX_IN_FLIGHT.check(claiming.maxInFlight());
    Settings.POLL_INTERVAL.check(claiming.pollInterval());
    Settings.LEASE.check(claiming.lease());
    validateRetry("", retries.defaults());
    retries
        .perTopic()
        .forEach(
            (topic, policy) -> {
              requireHandler("retryPolicy", topic);
              validateRetry("retryPolicy(" + topic + ").", policy);
            });
    reconciling.reconcilers().keySet().forEach(topic -> requireHandler("reconciler", topic));
    Setting.Span.checkOrdered(
        "",
        Settings.RECONCILE_INITIAL,
        reconciling.initial(),
        Settings.RECONCILE_MAX,
        reconciling.max());
    Settings.RETENTION.check(upkeep.retention());
    Settings.PURGE_INTERVAL.check(upkeep.purgeInterval());
    Settings.HANDLER_CONCURRENCY.check(handling.concurrency());
    Settings.MAX_HANDLING_TIME.check(handling.maxHandlingTime());
    Settings.GAUGE_INTERVAL.check(upkeep.gaugeInterval());
    Settings.SHUTDOWN_TIMEOUT.check(handling.shutdownTimeout());
    return this;
  }

  private void requireHandler(String setting, String topic) {
    if (!handlers.containsKey(topic)) {
      throw new IllegalArgumentException(
          setting + ": topic " + topic + " has no handler; register its handler first");
    }
  }

  private static void validateRetry(String prefix, RetryPolicy policy) {
    Settings.MAX_ATTEMPTS.check(prefix, policy.maxAttempts());
    Setting.Span.checkOrdered(
        prefix,
        Settings.BACKOFF_INITIAL,
        policy.backoffInitial(),
        Settings.BACKOFF_MAX,
        policy.backoffMax());
  }
}
