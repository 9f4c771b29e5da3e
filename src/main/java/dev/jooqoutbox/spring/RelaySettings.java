package dev.jooqoutbox.spring;

import dev.jooqoutbox.internal.relay.InvalidSettingException;
import dev.jooqoutbox.internal.relay.Setting;
import dev.jooqoutbox.relay.OutboxRelayBuilder;

/**
 * The {@code jooq-outbox.relay.*} properties applied to a relay builder, and the builder's
 * validation messages told in the properties' names: the builder names the setting it refused
 * ({@code batchSize must be between 1 and 10000, was 0}), the application's operator knows the
 * property ({@code jooq-outbox.relay.batch-size}). Both names come from the one list of settings.
 */
final class RelaySettings {

  private static final String RELAY = OutboxProperties.PREFIX + ".relay.";

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
   * The builder's refusal as an exception that says the configuration is wrong, each relay setting
   * it names told by its property ({@link Setting#property}); a per-topic setting of a customizer
   * keeps the builder's name. Without the builder's exception as its cause: the last cause is what
   * a failed start prints last, and it should name the property.
   */
  static IllegalStateException inPropertyNames(IllegalArgumentException refused) {
    if (refused instanceof InvalidSettingException invalid) {
      return new IllegalStateException(
          invalid.message(s -> s.property() == null ? s.name() : RELAY + s.property()));
    }
    return new IllegalStateException(String.valueOf(refused.getMessage()));
  }
}
