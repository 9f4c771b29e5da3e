package dev.jooqoutbox.internal.tracing;

import dev.jooqoutbox.OutboxMessage;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link Tracing} on OpenTelemetry. Only {@link Tracing#of} names this class, and only when an
 * instance is given or the API is on the class path, so no OpenTelemetry class is loaded otherwise.
 *
 * <p>The relay's span of an attempt is a {@link SpanKind#CONSUMER} span named {@code process
 * <topic>}, child of the context extracted from the message's headers (a new trace when they hold
 * none), with the messaging attributes of the semantic conventions where they fit and the outbox's
 * own under {@code jooq_outbox.*}. A failure of the propagators or the tracer is logged and costs
 * only the trace: the write and the delivery go on.
 */
final class OpenTelemetryTracing implements Tracing {

  /** The instrumentation scope of the spans. */
  static final String SCOPE = "dev.jooqoutbox";

  private static final Logger log = LoggerFactory.getLogger(Tracing.class);

  static final AttributeKey<String> SYSTEM = AttributeKey.stringKey("messaging.system");
  static final AttributeKey<String> OPERATION = AttributeKey.stringKey("messaging.operation.type");
  static final AttributeKey<String> DESTINATION =
      AttributeKey.stringKey("messaging.destination.name");
  static final AttributeKey<String> MESSAGE_ID = AttributeKey.stringKey("messaging.message.id");
  static final AttributeKey<String> AGGREGATE =
      AttributeKey.stringKey("jooq_outbox.message.aggregate");
  static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("jooq_outbox.message.attempt");
  static final AttributeKey<Long> SEQ = AttributeKey.longKey("jooq_outbox.message.seq");

  private static final TextMapGetter<Map<String, String>> HEADERS =
      new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Map<String, String> carrier) {
          return carrier.keySet();
        }

        @Override
        public String get(Map<String, String> carrier, String key) {
          return carrier == null ? null : carrier.get(key);
        }
      };

  private final Supplier<OpenTelemetry> openTelemetry;
  // The tracer of the instance last seen: the global one may be set after this was built.
  private volatile Tracers tracers;

  private record Tracers(OpenTelemetry openTelemetry, Tracer tracer) {}

  private OpenTelemetryTracing(Supplier<OpenTelemetry> openTelemetry) {
    this.openTelemetry = openTelemetry;
  }

  static Tracing on(Object openTelemetry) {
    OpenTelemetry given = (OpenTelemetry) Objects.requireNonNull(openTelemetry, "openTelemetry");
    return new OpenTelemetryTracing(() -> given);
  }

  /**
   * On the global instance, read at each use: an agent or an SDK registered after the outbox was
   * built is picked up, and {@code getOrNoop} (unlike {@code get}) never fixes the global instance
   * to a no-op before the application registers its own.
   */
  static Tracing global() {
    return new OpenTelemetryTracing(GlobalOpenTelemetry::getOrNoop);
  }

  @Override
  public Map<String, String> inject(Map<String, String> headers) {
    try {
      return injectInto(headers);
    } catch (RuntimeException e) {
      log.warn("the propagators failed: message written without its trace context", e);
      return headers;
    }
  }

  private Map<String, String> injectInto(Map<String, String> headers) {
    TextMapPropagator propagator = openTelemetry.get().getPropagators().getTextMapPropagator();
    for (String field : propagator.fields()) {
      for (String name : headers.keySet()) {
        if (name.equalsIgnoreCase(field)) {
          return headers; // the caller carries a context of its own: never mix two
        }
      }
    }
    Map<String, String> withContext = new LinkedHashMap<>(headers);
    propagator.inject(
        Context.current(), withContext, (carrier, key, value) -> carrier.put(key, value));
    return withContext.size() == headers.size() ? headers : withContext;
  }

  @Override
  public Set<String> fields() {
    try {
      return Set.copyOf(openTelemetry.get().getPropagators().getTextMapPropagator().fields());
    } catch (RuntimeException e) {
      log.warn("the propagators failed to name their fields", e);
      return Set.of();
    }
  }

  /**
   * Never throws: a tracing failure must not fail or stall a delivery (the handler runs untraced).
   */
  @Override
  public AttemptSpan startAttempt(OutboxMessage message) {
    try {
      return start(message);
    } catch (RuntimeException e) {
      log.warn("tracing failed: the attempt of {} runs without a span", message, e);
      return AttemptSpan.NONE;
    }
  }

  private AttemptSpan start(OutboxMessage message) {
    OpenTelemetry otel = openTelemetry.get();
    // From the root, not the current context: the relay's thread must lend the span nothing.
    Context parent =
        otel.getPropagators()
            .getTextMapPropagator()
            .extract(Context.root(), message.headers(), HEADERS);
    Span span =
        tracer(otel)
            .spanBuilder("process " + message.topic())
            .setParent(parent)
            .setSpanKind(SpanKind.CONSUMER)
            .setAttribute(SYSTEM, "jooq_outbox")
            .setAttribute(OPERATION, "process")
            .setAttribute(DESTINATION, message.topic())
            .setAttribute(MESSAGE_ID, message.id())
            .setAttribute(AGGREGATE, message.aggregate())
            .setAttribute(ATTEMPT, (long) message.attempt())
            .setAttribute(SEQ, message.seq())
            .startSpan();
    return new OpenTelemetryAttemptSpan(span, parent.with(span));
  }

  private Tracer tracer(OpenTelemetry otel) {
    Tracers seen = tracers;
    if (seen == null || seen.openTelemetry() != otel) {
      seen = new Tracers(otel, otel.getTracer(SCOPE));
      tracers = seen;
    }
    return seen.tracer();
  }
}
