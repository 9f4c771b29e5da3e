package dev.jooqoutbox.spring;

import dev.jooqoutbox.relay.OutboxRelayBuilder;

/**
 * Changes the auto-configured relay's builder after the {@code jooq-outbox.relay.*} properties and
 * the handlers found in the context were applied, for what properties cannot say: a clock, claim
 * tokens, a handler registered in code. Every bean of this type is applied, in {@code @Order}.
 */
@FunctionalInterface
public interface OutboxRelayCustomizer {

  void customize(OutboxRelayBuilder relay);
}
