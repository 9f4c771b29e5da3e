package dev.jooqoutbox.spring;

import dev.jooqoutbox.relay.AsyncOutboxHandler;
import dev.jooqoutbox.relay.OutboxHandler;
import dev.jooqoutbox.relay.OutboxRelayBuilder;

/**
 * One handler found in the application context.
 *
 * @param handler an {@link OutboxHandler} or an {@link AsyncOutboxHandler}
 * @param source where it came from, for startup errors: a method or a bean
 */
record HandlerRegistration(String topic, Object handler, String source) {

  /**
   * @throws IllegalStateException naming the source when the relay refuses the topic
   */
  void registerWith(OutboxRelayBuilder relay) {
    try {
      if (handler instanceof AsyncOutboxHandler async) {
        relay.asyncHandler(topic, async);
      } else {
        relay.handler(topic, (OutboxHandler) handler);
      }
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(source + ": " + e.getMessage(), e);
    }
  }
}
