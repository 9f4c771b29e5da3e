package dev.jooqoutbox.spring;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.relay.OutboxHandler;
import dev.jooqoutbox.testing.MigratedSqlite;
import dev.jooqoutbox.testing.TestTracing;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jooq.DSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

/**
 * The application's {@link OpenTelemetry} bean reaches the auto-configured writer and relay: one
 * trace from a span around a write in a Spring transaction to the handler of the relay.
 */
class TracingAutoConfigurationTest {

  @RegisterExtension static final MigratedSqlite db = new MigratedSqlite();
  static final List<SpanContext> seenByHandler = new CopyOnWriteArrayList<>();
  private TestTracing tracing;
  private OpenTelemetrySdk otel;

  @BeforeEach
  void openTelemetry() {
    seenByHandler.clear();
    tracing = new TestTracing();
    otel = tracing.sdk();
  }

  @AfterEach
  void closeOpenTelemetry() {
    tracing.close();
  }

  @OutboxListener("order.placed")
  static class PlacedHandler implements OutboxHandler {
    @Override
    public void handle(OutboxMessage message) {
      seenByHandler.add(Span.current().getSpanContext());
    }
  }

  private ApplicationContextRunner runner() {
    return Contexts.runner(db.database())
        .withPropertyValues("jooq-outbox.relay.poll-interval=50ms")
        .withBean(OpenTelemetry.class, () -> otel)
        .withBean(PlacedHandler.class);
  }

  @Test
  void theWriterAndTheRelayUseTheApplicationsOpenTelemetry() {
    runner()
        .run(
            context -> {
              Span writer = otel.getTracer("test").spanBuilder("place order").startSpan();
              try (Scope inWriter = writer.makeCurrent()) {
                Contexts.write(context, "o-1", "order.placed", "{}");
              } finally {
                writer.end();
              }
              assertThat(storedHeaders(context))
                  .contains("traceparent")
                  .contains(writer.getSpanContext().getTraceId());

              await().atMost(Duration.ofSeconds(20)).until(() -> !seenByHandler.isEmpty());
              await()
                  .atMost(Duration.ofSeconds(20))
                  .until(() -> tracing.consumerSpans().size() == 1);
              SpanData consumer = tracing.consumerSpans().get(0);
              assertThat(consumer.getTraceId()).isEqualTo(writer.getSpanContext().getTraceId());
              assertThat(consumer.getParentSpanId()).isEqualTo(writer.getSpanContext().getSpanId());
              assertThat(seenByHandler).containsExactly(consumer.getSpanContext());
            });
  }

  private static String storedHeaders(ApplicationContext context) {
    return context
        .getBean(DSLContext.class)
        .select(OUTBOX_MESSAGE.HEADERS)
        .from(OUTBOX_MESSAGE)
        .fetchSingle(OUTBOX_MESSAGE.HEADERS)
        .data();
  }
}
