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
 * OutboxRelayBuilder}, which documents each setting and its default.
 *
 * @param meterRegistry a Micrometer {@code MeterRegistry}, or null; typed {@code Object} so that
 *     Micrometer stays optional
 * @param openTelemetry an {@code io.opentelemetry.api.OpenTelemetry}, or null for the global one
 *     when the API is present; typed {@code Object} so that OpenTelemetry stays optional
 * @param retryPolicies the topics whose retries differ from {@code maxAttempts} and the backoff
 * @param reconcilers the reconciler of each topic that has one
 * @param reconcileInitial the first wait before a reconciler is asked about a message
 * @param reconcileMax the longest wait between two questions about one message
 */
public record RelayConfig(
    DSLContext dsl,
    Map<String, AsyncOutboxHandler> handlers,
    int batchSize,
    int maxRun,
    int maxInFlight,
    Duration pollInterval,
    Duration lease,
    int maxAttempts,
    Duration backoffInitial,
    Duration backoffMax,
    Duration retention,
    Duration purgeInterval,
    int handlerConcurrency,
    Duration maxHandlingTime,
    Duration gaugeInterval,
    Duration shutdownTimeout,
    Clock clock,
    Supplier<String> claimTokens,
    ObjectMapper mapper,
    Object meterRegistry,
    Object openTelemetry,
    boolean listen,
    Map<String, RetryPolicy> retryPolicies,
    Map<String, OutboxReconciler> reconcilers,
    Duration reconcileInitial,
    Duration reconcileMax) {

  public RelayConfig {
    handlers = Map.copyOf(handlers);
    retryPolicies = Map.copyOf(retryPolicies);
    reconcilers = Map.copyOf(reconcilers);
  }

  /** The retry policy of {@code topic}: its own, or the relay's defaults. */
  public RetryPolicy retryPolicy(String topic) {
    RetryPolicy own = retryPolicies.get(topic);
    return own != null ? own : new RetryPolicy(maxAttempts, backoffInitial, backoffMax);
  }

  /**
   * @throws IllegalArgumentException naming the first invalid setting and its value: an {@link
   *     InvalidSettingException} for a setting out of its bounds ({@link Settings})
   */
  public RelayConfig validate() {
    if (handlers.isEmpty()) {
      throw new IllegalArgumentException("handlers: register at least one handler(topic, ...)");
    }
    Settings.BATCH_SIZE.check(batchSize);
    Settings.MAX_RUN.check(maxRun);
    Settings.MAX_IN_FLIGHT.check(maxInFlight);
    Settings.POLL_INTERVAL.check(pollInterval);
    Settings.LEASE.check(lease);
    validateRetry("", new RetryPolicy(maxAttempts, backoffInitial, backoffMax));
    retryPolicies.forEach(
        (topic, policy) -> {
          requireHandler("retryPolicy", topic);
          validateRetry("retryPolicy(" + topic + ").", policy);
        });
    reconcilers.keySet().forEach(topic -> requireHandler("reconciler", topic));
    Setting.Span.checkOrdered(
        "", Settings.RECONCILE_INITIAL, reconcileInitial, Settings.RECONCILE_MAX, reconcileMax);
    Settings.RETENTION.check(retention);
    Settings.PURGE_INTERVAL.check(purgeInterval);
    Settings.HANDLER_CONCURRENCY.check(handlerConcurrency);
    Settings.MAX_HANDLING_TIME.check(maxHandlingTime);
    Settings.GAUGE_INTERVAL.check(gaugeInterval);
    Settings.SHUTDOWN_TIMEOUT.check(shutdownTimeout);
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
