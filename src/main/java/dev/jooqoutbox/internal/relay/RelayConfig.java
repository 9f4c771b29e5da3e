package dev.jooqoutbox.internal.relay;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.jooqoutbox.relay.AsyncOutboxHandler;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.function.Supplier;
import org.jooq.DSLContext;

/**
 * A relay's settings, checked: {@link #validate} names the first invalid one. Built by {@code
 * OutboxRelay.Builder}, which documents each setting and its default.
 *
 * @param meterRegistry a Micrometer {@code MeterRegistry}, or null; typed {@code Object} so that
 *     Micrometer stays optional
 * @param openTelemetry an {@code io.opentelemetry.api.OpenTelemetry}, or null for the global one
 *     when the API is present; typed {@code Object} so that OpenTelemetry stays optional
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
    boolean listen) {

  public RelayConfig {
    handlers = Map.copyOf(handlers);
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
    requireRange("maxAttempts", maxAttempts, 1, 1_000_000);
    requirePositive("backoff initial", backoffInitial);
    requirePositive("backoff max", backoffMax);
    if (backoffMax.compareTo(backoffInitial) < 0) {
      throw new IllegalArgumentException(
          "backoff max must be at least backoff initial, was "
              + backoffMax
              + " < "
              + backoffInitial);
    }
    requirePositive("retention", retention);
    requirePositive("purgeInterval", purgeInterval);
    requireRange("handlerConcurrency", handlerConcurrency, 1, 1_000);
    requirePositive("maxHandlingTime", maxHandlingTime);
    requirePositive("gaugeInterval", gaugeInterval);
    requirePositive("shutdownTimeout", shutdownTimeout);
    return this;
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
