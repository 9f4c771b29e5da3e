package dev.jooqoutbox.internal.tracing;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/** The span of one attempt, and the context (extracted baggage included) the handler runs in. */
final class OpenTelemetryAttemptSpan implements AttemptSpan {

  static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");

  private final Span span;
  private final Context context;
  private final AtomicBoolean ended = new AtomicBoolean();

  OpenTelemetryAttemptSpan(Span span, Context context) {
    this.span = span;
    this.context = context;
  }

  @Override
  public <T> T callInside(Supplier<T> call) {
    try (Scope current = context.makeCurrent()) {
      return call.get();
    }
  }

  @Override
  public void end(Throwable failure) {
    if (!ended.compareAndSet(false, true)) {
      return; // an attempt is decided once; a late result changes nothing
    }
    if (failure != null) {
      span.setStatus(
          StatusCode.ERROR,
          failure.getMessage() != null ? failure.getMessage() : failure.getClass().getName());
      span.setAttribute(ERROR_TYPE, failure.getClass().getName());
      span.recordException(failure);
    }
    span.end();
  }
}
