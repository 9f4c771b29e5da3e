package dev.jooqoutbox.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.jooqoutbox.Outbox;
import dev.jooqoutbox.testing.TestDatabase;
import dev.jooqoutbox.testing.TestTracing;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.context.propagation.TextMapSetter;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Trace propagation through the outbox with OpenTelemetry's SDK and its in-memory exporter: the
 * writer's context goes into the headers, each attempt of the relay is a consumer span that
 * continues it, current while the handler runs. The instance is passed to the writer and the relay
 * explicitly, so these tests never touch {@code GlobalOpenTelemetry}.
 */
abstract class RelayTracingContract extends RelayContractSupport {

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final String USERS_TRACEPARENT =
      "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

  private TestTracing tracing;
  private OpenTelemetrySdk otel;
  private Tracer tracer;
  private Outbox traced;

  RelayTracingContract(TestDatabase.Kind kind) {
    super(kind);
  }

  @BeforeEach
  void openTelemetry() {
    tracing = new TestTracing();
    otel = tracing.sdk();
    tracer = otel.getTracer("test");
    traced = Outbox.builder(dsl).clock(clock).openTelemetry(otel).build();
  }

  @AfterEach
  void closeOpenTelemetry() {
    tracing.close();
  }

  @Test
  void oneTraceFromTheWritersSpanThroughTheRelayIntoTheHandlersBrokerHeaders() throws Exception {
    Span writer = tracer.spanBuilder("place order").startSpan();
    String id = writeInside(writer);
    Map<String, String> stored = storedHeaders(id);
    assertThat(stored).containsOnlyKeys("traceparent");
    assertThat(stored.get("traceparent"))
        .contains(writer.getSpanContext().getTraceId())
        .contains(writer.getSpanContext().getSpanId());

    List<SpanContext> seenByHandler = new CopyOnWriteArrayList<>();
    List<Map<String, String>> brokerHeaders = new CopyOnWriteArrayList<>();
    OutboxRelay relay =
        closeLater(
            relay()
                .openTelemetry(otel)
                .handler(
                    "orders",
                    m -> {
                      seenByHandler.add(Span.current().getSpanContext());
                      // What a publisher does: the current context into the broker message.
                      Map<String, String> published = new HashMap<>();
                      otel.getPropagators()
                          .getTextMapPropagator()
                          .inject(Context.current(), published, Map::put);
                      brokerHeaders.add(published);
                    })
                .build());
    assertThat(relay.drainOnce(10)).isOne();

    SpanData consumer = attemptSpan();
    assertThat(consumer.getKind()).isEqualTo(SpanKind.CONSUMER);
    assertThat(consumer.getName()).isEqualTo("process orders");
    assertThat(consumer.getTraceId()).isEqualTo(writer.getSpanContext().getTraceId());
    assertThat(consumer.getParentSpanId()).isEqualTo(writer.getSpanContext().getSpanId());
    assertThat(consumer.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
    assertThat(consumer.getAttributes().asMap())
        .containsEntry(AttributeKey.stringKey("messaging.system"), "jooq_outbox")
        .containsEntry(AttributeKey.stringKey("messaging.operation.type"), "process")
        .containsEntry(AttributeKey.stringKey("messaging.destination.name"), "orders")
        .containsEntry(AttributeKey.stringKey("messaging.message.id"), id)
        .containsEntry(AttributeKey.stringKey("jooq_outbox.message.aggregate"), "order-1")
        .containsEntry(AttributeKey.longKey("jooq_outbox.message.attempt"), 1L)
        .containsEntry(AttributeKey.longKey("jooq_outbox.message.seq"), row(id).getSeq());
    assertThat(seenByHandler).containsExactly(consumer.getSpanContext());
    assertThat(brokerHeaders.get(0).get("traceparent"))
        .isEqualTo(
            "00-"
                + consumer.getTraceId()
                + "-"
                + consumer.getSpanId()
                + "-"
                + consumer.getSpanContext().getTraceFlags().asHex());
    // The relay's thread lends the handler nothing once the attempt is over.
    assertThat(Span.current().getSpanContext().isValid()).isFalse();
  }

  @Test
  void aFailingAttemptIsAnErrorSpanAndTheRetryContinuesTheSameTrace() {
    Span writer = tracer.spanBuilder("place order").startSpan();
    String id = writeInside(writer);
    OutboxRelay relay =
        closeLater(
            relay()
                .openTelemetry(otel)
                .backoff(Duration.ofSeconds(1), Duration.ofSeconds(1))
                .handler(
                    "orders",
                    m -> {
                      if (m.attempt() == 1) {
                        throw new IllegalStateException("downstream unavailable");
                      }
                    })
                .build());
    assertThat(relay.drainOnce(10)).isOne();
    clock.advance(Duration.ofSeconds(1));
    assertThat(relay.drainOnce(10)).isOne();
    assertThat(row(id).isSent()).isTrue();

    List<SpanData> attempts = attemptSpans();
    assertThat(attempts).hasSize(2);
    SpanData failed = attempts.get(0);
    assertThat(failed.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(failed.getStatus().getDescription()).isEqualTo("downstream unavailable");
    assertThat(failed.getAttributes().get(AttributeKey.stringKey("error.type")))
        .isEqualTo(IllegalStateException.class.getName());
    assertThat(failed.getAttributes().get(AttributeKey.longKey("jooq_outbox.message.attempt")))
        .isEqualTo(1L);
    assertThat(failed.getEvents())
        .singleElement()
        .satisfies(
            event -> {
              assertThat(event.getName()).isEqualTo("exception");
              assertThat(event.getAttributes().get(AttributeKey.stringKey("exception.message")))
                  .isEqualTo("downstream unavailable");
            });
    SpanData retried = attempts.get(1);
    assertThat(retried.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
    assertThat(retried.getAttributes().get(AttributeKey.longKey("jooq_outbox.message.attempt")))
        .isEqualTo(2L);
    for (SpanData attempt : attempts) {
      assertThat(attempt.getTraceId()).isEqualTo(writer.getSpanContext().getTraceId());
      assertThat(attempt.getParentSpanId()).isEqualTo(writer.getSpanContext().getSpanId());
    }
  }

  @Test
  void aMessageWrittenWithoutACurrentSpanStartsANewTrace() {
    String id = write(traced, "order-1", "orders", Map.of("n", 1));
    assertThat(storedHeaders(id)).isEmpty();
    String other =
        dsl.transactionResult(
            tx ->
                traced
                    .message("order-2", "orders", Map.of("n", 2))
                    .header("tenant", "t1")
                    .write(tx.dsl()));
    assertThat(storedHeaders(other)).containsExactly(Map.entry("tenant", "t1"));

    OutboxRelay relay = closeLater(relay().openTelemetry(otel).handler("orders", m -> {}).build());
    assertThat(relay.drainOnce(10)).isEqualTo(2);

    List<SpanData> attempts = attemptSpans();
    assertThat(attempts).hasSize(2);
    for (SpanData attempt : attempts) {
      assertThat(attempt.getParentSpanContext().isValid()).as("has a parent").isFalse();
      assertThat(attempt.getSpanContext().isValid()).isTrue();
    }
    assertThat(attempts.get(0).getTraceId()).isNotEqualTo(attempts.get(1).getTraceId());
  }

  @Test
  void aTraceparentTheCallerSetIsNeverOverwritten() {
    Span writer = tracer.spanBuilder("place order").startSpan();
    String id;
    try (Scope inWriter = writer.makeCurrent()) {
      id =
          dsl.transactionResult(
              tx ->
                  traced
                      .message("order-1", "orders", Map.of("n", 1))
                      .header("traceparent", USERS_TRACEPARENT)
                      .write(tx.dsl()));
    } finally {
      writer.end();
    }
    // Not replaced, and no tracestate of the writer's span mixed into the caller's context.
    assertThat(storedHeaders(id)).containsExactly(Map.entry("traceparent", USERS_TRACEPARENT));

    OutboxRelay relay = closeLater(relay().openTelemetry(otel).handler("orders", m -> {}).build());
    assertThat(relay.drainOnce(10)).isOne();
    SpanData consumer = attemptSpan();
    assertThat(consumer.getTraceId()).isEqualTo("0af7651916cd43dd8448eb211c80319c");
    assertThat(consumer.getParentSpanId()).isEqualTo("b7ad6b7169203331");
  }

  @Test
  void anIdempotentRewriteFromAnotherTraceIsTheSameMessage() {
    String id = "order-1-placed";
    Span first = tracer.spanBuilder("first request").startSpan();
    try (Scope inFirst = first.makeCurrent()) {
      dsl.transaction(
          tx -> traced.message("order-1", "orders", Map.of("n", 1)).id(id).write(tx.dsl()));
    } finally {
      first.end();
    }
    Span retry = tracer.spanBuilder("retried request").startSpan();
    try (Scope inRetry = retry.makeCurrent()) {
      String again =
          dsl.transactionResult(
              tx -> traced.message("order-1", "orders", Map.of("n", 1)).id(id).write(tx.dsl()));
      assertThat(again).isEqualTo(id);
    } finally {
      retry.end();
    }
    // The first write's context stays: the retry wrote nothing.
    assertThat(storedHeaders(id).get("traceparent")).contains(first.getSpanContext().getTraceId());
  }

  @Test
  void anAsynchronousAttemptsSpanEndsWhenItsStageCompletes() {
    String id = write(traced, "order-1", "orders", Map.of("n", 1));
    CompletableFuture<Void> confirmed = new CompletableFuture<>();
    List<SpanContext> seenByHandler = new CopyOnWriteArrayList<>();
    OutboxRelay relay =
        closeLater(
            relay(java.time.Clock.systemUTC())
                .openTelemetry(otel)
                .asyncHandler(
                    "orders",
                    m -> {
                      seenByHandler.add(Span.current().getSpanContext());
                      return confirmed;
                    })
                .build());
    relay.start();

    await().atMost(Duration.ofSeconds(20)).until(() -> !seenByHandler.isEmpty());
    assertThat(tracing.spans()).isEmpty();
    confirmed.complete(null);
    await().atMost(Duration.ofSeconds(20)).until(() -> row(id).isSent());
    SpanData consumer = attemptSpan();
    assertThat(consumer.getSpanContext()).isEqualTo(seenByHandler.get(0));
    assertThat(consumer.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
  }

  @Test
  void anAttemptPastTheMaximumHandlingTimeIsAnErrorSpan() {
    write(traced, "order-1", "orders", Map.of("n", 1));
    OutboxRelay relay =
        closeLater(
            relay(java.time.Clock.systemUTC())
                .openTelemetry(otel)
                .maxHandlingTime(Duration.ofMillis(200))
                .asyncHandler("orders", m -> new CompletableFuture<Void>())
                .build());
    relay.start();

    await().atMost(Duration.ofSeconds(20)).until(() -> !attemptSpans().isEmpty());
    SpanData timedOut = attemptSpans().get(0);
    assertThat(timedOut.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(timedOut.getAttributes().get(AttributeKey.stringKey("error.type")))
        .isEqualTo(TimeoutException.class.getName());
  }

  @Test
  void withoutAnInstanceBothUseTheGlobalOneReadAtEachUse() {
    assertThat(GlobalOpenTelemetry.isSet()).as("no other test left a global instance").isFalse();
    // Built before the application registers its SDK, as at a real start-up: reading the global
    // instance must not fix it to a no-op (GlobalOpenTelemetry.get would).
    Outbox plain = Outbox.builder(dsl).clock(clock).build();
    List<SpanContext> seenByHandler = new CopyOnWriteArrayList<>();
    OutboxRelay relay =
        closeLater(
            relay()
                .handler("orders", m -> seenByHandler.add(Span.current().getSpanContext()))
                .build());
    write(plain, "order-0", "orders", Map.of("n", 0));
    assertThat(relay.drainOnce(10)).isOne();
    GlobalOpenTelemetry.set(otel);
    try {
      Span writer = tracer.spanBuilder("place order").startSpan();
      try (Scope inWriter = writer.makeCurrent()) {
        write(plain, "order-1", "orders", Map.of("n", 1));
      } finally {
        writer.end();
      }
      assertThat(relay.drainOnce(10)).isOne();
      SpanData consumer = attemptSpan();
      assertThat(consumer.getTraceId()).isEqualTo(writer.getSpanContext().getTraceId());
      assertThat(consumer.getParentSpanId()).isEqualTo(writer.getSpanContext().getSpanId());
      assertThat(seenByHandler.get(0).isValid()).as("before the SDK: no span").isFalse();
      assertThat(seenByHandler.get(1)).isEqualTo(consumer.getSpanContext());
    } finally {
      GlobalOpenTelemetry.resetForTest();
    }
  }

  @Test
  void propagatorsThatThrowCostTheTraceNotTheWriteOrTheDelivery() {
    TextMapPropagator broken =
        new TextMapPropagator() {
          @Override
          public Collection<String> fields() {
            return List.of("traceparent");
          }

          @Override
          public <C> void inject(Context context, C carrier, TextMapSetter<C> setter) {
            throw new IllegalStateException("broken propagator");
          }

          @Override
          public <C> Context extract(Context context, C carrier, TextMapGetter<C> getter) {
            throw new IllegalStateException("broken propagator");
          }
        };
    OpenTelemetry brokenOtel = OpenTelemetry.propagating(ContextPropagators.create(broken));
    Outbox writer = Outbox.builder(dsl).clock(clock).openTelemetry(brokenOtel).build();
    Span span = tracer.spanBuilder("place order").startSpan();
    String id;
    try (Scope inSpan = span.makeCurrent()) {
      id = write(writer, "order-1", "orders", Map.of("n", 1));
    } finally {
      span.end();
    }
    assertThat(storedHeaders(id)).isEmpty();

    List<String> delivered = new CopyOnWriteArrayList<>();
    OutboxRelay relay =
        closeLater(
            relay()
                .openTelemetry(brokenOtel)
                .handler("orders", m -> delivered.add(m.id()))
                .build());
    assertThat(relay.drainOnce(10)).isOne();
    assertThat(delivered).containsExactly(id);
    assertThat(row(id).isSent()).isTrue();
  }

  /** Writes one message of aggregate order-1 with {@code writer} current, then ends it. */
  private String writeInside(Span writer) {
    try (Scope inWriter = writer.makeCurrent()) {
      return write(traced, "order-1", "orders", Map.of("n", 1));
    } finally {
      writer.end();
    }
  }

  private List<SpanData> attemptSpans() {
    return tracing.consumerSpans();
  }

  private SpanData attemptSpan() {
    List<SpanData> attempts = attemptSpans();
    assertThat(attempts).hasSize(1);
    return attempts.get(0);
  }

  private Map<String, String> storedHeaders(String id) {
    return row(id).getHeaders();
  }
}
