package dev.jooqoutbox.publisher.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.publisher.PublishException;
import dev.jooqoutbox.publisher.PublisherFixture;
import dev.jooqoutbox.publisher.Received;
import dev.jooqoutbox.publisher.TestBrokers;
import dev.jooqoutbox.testing.TestDatabase;
import dev.jooqoutbox.testing.TestTracing;
import io.nats.client.Connection;
import io.nats.client.ConnectionListener;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The NATS JetStream publisher behind a relay, against the real server: what the relay sends is
 * stored as written. The PostgreSQL subclass adds order across relays, an outage and a subject
 * without a stream.
 */
abstract class NatsPublisherContract extends PublisherFixture {

  /** Each test's own subject (the default subject function maps the topic to it). */
  String topic;

  NatsStream stream;

  /** What the connections of this test's publishers went through. */
  final List<ConnectionListener.Events> events = new CopyOnWriteArrayList<>();

  NatsPublisherContract(TestDatabase.Kind kind) {
    super(kind);
  }

  @BeforeAll
  void serverAnswers() {
    TestBrokers.assumeNats();
  }

  @BeforeEach
  void streamOfItsOwn() throws Exception {
    String name = "outbox-test-" + UUID.randomUUID().toString().substring(0, 8);
    topic = name.replace('-', '_');
    stream = closeLater(new NatsStream(topic, topic));
  }

  /** A connection of its own (closed after the test) that reconnects without end. */
  Connection connection(int port) throws Exception {
    Options options =
        new Options.Builder()
            .server(TestBrokers.natsUrl(port))
            .maxReconnects(-1)
            .reconnectWait(Duration.ofMillis(100))
            .connectionListener((c, event) -> events.add(event))
            .build();
    Connection connection = Nats.connect(options);
    closeLater(connection::close);
    return connection;
  }

  NatsPublisher publisher(int port) throws Exception {
    return NatsPublisher.builder(connection(port)).ackTimeout(Duration.ofSeconds(2)).build();
  }

  @Test
  void everyMessageIsStoredAsWrittenWithItsIdAsNatsMsgId() throws Exception {
    List<String> ids = write(topic, 5, 20);
    startRelay(topic, publisher(TestBrokers.NATS_PORT));

    awaitNothingPending(Duration.ofSeconds(30));

    List<Received> received = stream.received();
    assertArrivedAsWritten(ids, received, true);
    assertInOrderPerAggregate(received, 20);
    assertThat(admin.message(ids.get(0)).orElseThrow().attempts()).isEqualTo(1);
  }

  @Test
  void closeWaitsForWhatIsInFlightThenRefusesAndLeavesTheConnectionOpen() throws Exception {
    Connection connection = connection(TestBrokers.NATS_PORT);
    NatsPublisher publisher =
        NatsPublisher.builder(connection).ackTimeout(Duration.ofSeconds(5)).build();
    List<CompletableFuture<?>> stages = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      stages.add(publisher.handle(message("close-" + i)).toCompletableFuture());
    }

    publisher.close(); // right after the publishes: their acknowledgements are still on the way

    assertThat(stages).allMatch(s -> s.isDone() && !s.isCompletedExceptionally());
    assertThat(stream.received()).hasSize(50);
    CompletableFuture<?> refused = publisher.handle(message("late")).toCompletableFuture();
    assertThatThrownBy(refused::join)
        .hasCauseInstanceOf(PublishException.class)
        .hasMessageContaining("NatsPublisher is closed");
    assertThat(connection.getStatus()).isEqualTo(Connection.Status.CONNECTED);
  }

  private OutboxMessage message(String id) {
    return new OutboxMessage(
        1, id, "a", topic, "{}", Map.of(), 1, Instant.now(), new ObjectMapper());
  }

  @Test
  void aMessageWrittenInASpanCarriesItsTraceToTheBrokersConsumer() throws Exception {
    try (TestTracing tracing = new TestTracing()) {
      String traceId = writeInASpanAndRelay(tracing, topic, publisher(TestBrokers.NATS_PORT));
      // Nothing is pending: the stream has stored the message (settled on its PublishAck).
      assertContinuesTrace(stream.received().get(0), traceId);
    }
  }
}
