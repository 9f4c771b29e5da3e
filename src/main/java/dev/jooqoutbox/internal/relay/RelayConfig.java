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
   * @throws IllegalArgumentException naming the first invalid setting and its value
   */
  public RelayConfig validate() {
    if (handlers.isEmpty()) {
      throw new IllegalArgumentException("handlers: register at least one handler(topic, ...)");
    }
    requireRange("batchSize", batchSize, 1, 10_000);
    requireRange("maxRun", maxRun, 1, 10_000);
    requireRange("maxInFlight", maxInFlight, 1, 1_000_000);
    requirePositive("pollInterval", pollInterval);
    requirePositive("lease", lease);
    validateRetry("", new RetryPolicy(maxAttempts, backoffInitial, backoffMax));
    retryPolicies.forEach(
        (topic, policy) -> {
          requireHandler("retryPolicy", topic);
          validateRetry("retryPolicy(" + topic + ").", policy);
        });
    reconcilers.keySet().forEach(topic -> requireHandler("reconciler", topic));
    requireOrdered("reconcileBackoff", reconcileInitial, reconcileMax);
    requirePositive("retention", retention);
    requirePositive("purgeInterval", purgeInterval);
    requireRange("handlerConcurrency", handlerConcurrency, 1, 1_000);
    requirePositive("maxHandlingTime", maxHandlingTime);
    requirePositive("gaugeInterval", gaugeInterval);
    requirePositive("shutdownTimeout", shutdownTimeout);
    return this;
  }

  private void requireHandler(String setting, String topic) {
    if (!handlers.containsKey(topic)) {
      throw new IllegalArgumentException(
          setting + ": topic " + topic + " has no handler; register its handler first");
    }
  }

  private static void validateRetry(String prefix, RetryPolicy policy) {
    requireRange(prefix + "maxAttempts", policy.maxAttempts(), 1, 1_000_000);
    requireOrdered(prefix + "backoff", policy.backoffInitial(), policy.backoffMax());
  }

  private static void requireOrdered(String setting, Duration initial, Duration max) {
    requirePositive(setting + " initial", initial);
    requirePositive(setting + " max", max);
    if (max.compareTo(initial) < 0) {
      throw new IllegalArgumentException(
          setting + " max must be at least " + setting + " initial, was " + max + " < " + initial);
    }
  }

  private static void requireRange(String setting, int value, int min, int max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(
          setting + " must be between " + min + " and " + max + ", was " + value);
    }
  }

  private static void requirePositive(String setting, Duration value) {
    if (value == null || value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(setting + " must be a positive duration, was " + value);
    }
  }
}
