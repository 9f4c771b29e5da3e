package dev.jooqoutbox.testing;

import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.List;

/**
 * OpenTelemetry's SDK with W3C trace context propagation and an in-memory exporter that receives
 * each span as it ends. Passed explicitly to what it traces, never registered as the global one.
 */
public final class TestTracing implements AutoCloseable {

  private final InMemorySpanExporter spans = InMemorySpanExporter.create();
  private final OpenTelemetrySdk sdk =
      OpenTelemetrySdk.builder()
          .setTracerProvider(
              SdkTracerProvider.builder()
                  .addSpanProcessor(SimpleSpanProcessor.create(spans))
                  .build())
          .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
          .build();

  public OpenTelemetrySdk sdk() {
    return sdk;
  }

  /** Every span ended so far, in the order they ended. */
  public List<SpanData> spans() {
    return spans.getFinishedSpanItems();
  }

  /** The ended consumer spans: the relay's attempts. */
  public List<SpanData> consumerSpans() {
    return spans().stream().filter(s -> s.getKind() == SpanKind.CONSUMER).toList();
  }

  @Override
  public void close() {
    sdk.close();
  }
}
