package dev.jooqoutbox.spring;

import dev.jooqoutbox.relay.OutboxRelayBuilder;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code jooq-outbox.relay.*} properties applied to a relay builder, and the builder's
 * validation messages told in the properties' names: the builder names the setting it refused
 * ({@code batchSize must be between 1 and 10000, was 0}), the application's operator knows the
 * property ({@code jooq-outbox.relay.batch-size}).
 */
final class RelaySettings {

  private static final String RELAY = OutboxProperties.PREFIX + ".relay.";

  /** Builder setting names, as its messages spell them, and their properties. */
  private static final Map<String, String> PROPERTIES = new LinkedHashMap<>();

  static {
    // Two-word names first, so that "backoff max" is not read as something else.
    PROPERTIES.put("backoff initial", RELAY + "backoff.initial");
    PROPERTIES.put("backoff max", RELAY + "backoff.max");
    PROPERTIES.put("batchSize", RELAY + "batch-size");
    PROPERTIES.put("maxRun", RELAY + "max-run");
    PROPERTIES.put("maxInFlight", RELAY + "max-in-flight");
    PROPERTIES.put("handlerConcurrency", RELAY + "concurrency");
    PROPERTIES.put("lease", RELAY + "lease");
    PROPERTIES.put("maxAttempts", RELAY + "max-attempts");
    PROPERTIES.put("maxHandlingTime", RELAY + "max-handling-time");
    PROPERTIES.put("retention", RELAY + "retention");
    PROPERTIES.put("purgeInterval", RELAY + "purge-interval");
    PROPERTIES.put("pollInterval", RELAY + "poll-interval");
    PROPERTIES.put("gaugeInterval", RELAY + "gauge-interval");
    PROPERTIES.put("shutdownTimeout", RELAY + "shutdown-timeout");
    PROPERTIES.put("maxPayloadBytes", OutboxProperties.PREFIX + ".write.max-payload-bytes");
  }

  private RelaySettings() {}

  static OutboxRelayBuilder apply(OutboxRelayProperties p, OutboxRelayBuilder relay) {
    if (p.getMaxInFlight() != null) {
      relay.maxInFlight(p.getMaxInFlight());
    }
    return relay
        .batchSize(p.getBatchSize())
        .maxRun(p.getMaxRun())
        .handlerConcurrency(p.getConcurrency())
        .lease(p.getLease())
        .maxAttempts(p.getMaxAttempts())
        .maxHandlingTime(p.getMaxHandlingTime())
        .backoff(p.getBackoff().getInitial(), p.getBackoff().getMax())
        .retention(p.getRetention())
        .purgeInterval(p.getPurgeInterval())
        .pollInterval(p.getPollInterval())
        .listen(p.isWakeUp())
        .gaugeInterval(p.getGaugeInterval())
        .shutdownTimeout(p.getShutdownTimeout());
  }

  /**
   * The builder's message with each setting named by its property, as an exception that says the
   * configuration is wrong. Without the builder's exception as its cause: the last cause is what a
   * failed start prints last, and it should name the property.
   */
  static IllegalStateException inPropertyNames(IllegalArgumentException refused) {
    String message = String.valueOf(refused.getMessage());
    for (Map.Entry<String, String> name : PROPERTIES.entrySet()) {
      // Not after a dot: "retryPolicy(t).maxAttempts" is a builder call of a customizer's.
      message = message.replaceAll("(?<!\\.)\\b" + name.getKey() + "\\b", name.getValue());
    }
    return new IllegalStateException(message);
  }
}
