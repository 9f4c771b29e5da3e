package dev.jooqoutbox.internal.tracing;

import dev.jooqoutbox.OutboxMessage;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Trace propagation through the outbox: the writer records the current trace context in a message's
 * headers, the relay runs each attempt inside a span that continues it. No OpenTelemetry type
 * appears here, so the core loads this interface whether or not OpenTelemetry (an optional
 * dependency) is on the class path; {@link #NONE} does nothing.
 */
public interface Tracing {

  /** What the core uses when OpenTelemetry is absent: adds no header, starts no span. */
  Tracing NONE = new Tracing() {};

  /**
   * {@code headers} plus the current trace context as the configured propagators write it; the same
   * map when they write nothing. Headers the caller set are never replaced: when {@code headers}
   * already hold one of the propagators' fields, nothing is added at all.
   */
  default Map<String, String> inject(Map<String, String> headers) {
    return headers;
  }

  /** The header names the propagators may write. */
  default Set<String> fields() {
    return Set.of();
  }

  /**
   * A stored message's headers without the propagators' fields that {@code callers} (the headers a
   * rewrite of it gives) does not hold: what the caller gave, for an idempotent rewrite to compare,
   * the trace context of either write left out.
   */
  default Map<String, String> withoutContext(
      Map<String, String> stored, Map<String, String> callers) {
    Set<String> fields = fields();
    if (fields.isEmpty()) {
      return stored;
    }
    Map<String, String> given = new LinkedHashMap<>(stored);
    given.keySet().removeIf(name -> fields.contains(name) && !callers.containsKey(name));
    return given;
  }

  /** Starts the span of one delivery attempt of {@code message}; the caller ends it. */
  default AttemptSpan startAttempt(OutboxMessage message) {
    return AttemptSpan.NONE;
  }

  /**
   * The tracing of a writer or relay: on {@code openTelemetry} when one is given (an {@code
   * io.opentelemetry.api.OpenTelemetry}, typed {@code Object} so this interface names no
   * OpenTelemetry class), else on {@code GlobalOpenTelemetry} when the API is on the class path,
   * else {@link #NONE}.
   */
  static Tracing of(Object openTelemetry) {
    if (openTelemetry != null) {
      return OpenTelemetryTracing.on(openTelemetry);
    }
    return TracingSupport.API_PRESENT ? OpenTelemetryTracing.global() : NONE;
  }
}
