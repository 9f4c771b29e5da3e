package dev.jooqoutbox.spring;

import dev.jooqoutbox.Outbox;

/**
 * Gives the auto-configured {@link Outbox} the application's OpenTelemetry: a bean of this type
 * exists only when OpenTelemetry is on the class path, so {@link OutboxAutoConfiguration} itself
 * names no OpenTelemetry class.
 */
@FunctionalInterface
interface WriterTracing {

  void configure(Outbox.Builder outbox);
}
