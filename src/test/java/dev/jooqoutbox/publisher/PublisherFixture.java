package dev.jooqoutbox.publisher;

import static dev.jooqoutbox.schema.Tables.OUTBOX_EVENT;
import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static dev.jooqoutbox.schema.Tables.OUTBOX_SHARD;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.jooqoutbox.MessageState;
import dev.jooqoutbox.MessageStatus;
import dev.jooqoutbox.Outbox;
import dev.jooqoutbox.OutboxAdmin;
import dev.jooqoutbox.faults.ChildJvm;
import dev.jooqoutbox.relay.AsyncOutboxHandler;
import dev.jooqoutbox.relay.OutboxRelay;
import dev.jooqoutbox.relay.OutboxRelayBuilder;
import dev.jooqoutbox.testing.DatabaseFixture;
import dev.jooqoutbox.testing.StoredMessages;
import dev.jooqoutbox.testing.TestDatabase;
import dev.jooqoutbox.testing.TestTracing;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * What the publisher tests share: relays on the test database with real time (the broker's
 * confirmations take real time), messages written with known payloads and headers, and the checks
 * of what a consumer read: every message as written, in order per aggregate.
 *
 * <p>Payloads are {@code {"aggregate": "agg-3", "n": 7, "text": ...}}, {@code n} counting each
 * aggregate's messages from 0, so a consumer's view tells the aggregate and the position.
 */
public abstract class PublisherFixture extends DatabaseFixture {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** The test database without jOOQ's per-statement DEBUG logging. */
  protected DSLContext dsl;

  protected Outbox outbox;
  protected OutboxAdmin admin;
  private final List<AutoCloseable> toClose = new ArrayList<>();

  protected PublisherFixture(TestDatabase.Kind kind) {
    super(kind);
  }

  @BeforeEach
  void outboxOnRealTime() {
    dsl = DSL.using(db.dataSource(), db.dialect(), new Settings().withExecuteLogging(false));
    outbox = Outbox.builder(dsl).build();
    admin = OutboxAdmin.create(dsl);
  }

  /** Relays first (they were registered after their publishers), then publishers and consumers. */
  @AfterEach
  void closeInReverseOrder() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      toClose.get(i).close();
    }
    toClose.clear();
  }

  protected <T extends AutoCloseable> T closeLater(T closeable) {
    toClose.add(closeable);
    return closeable;
  }

  /** A relay builder: real time, short polls and backoff, no LISTEN, runs of up to 10 messages. */
  protected OutboxRelayBuilder relay() {
    return OutboxRelay.builder(dsl)
        .listen(false)
        .pollInterval(Duration.ofMillis(20))
        .backoff(Duration.ofMillis(50), Duration.ofMillis(400))
        .maxHandlingTime(Duration.ofSeconds(20))
        .handlerConcurrency(2)
        .maxRun(10);
  }

  /** Builds and starts a relay of {@code topic} with {@code handler}; closed after the test. */
  protected OutboxRelay startRelay(String topic, AsyncOutboxHandler handler) {
    OutboxRelay relay = closeLater(relay().asyncHandler(topic, handler).build());
    relay.start();
    return relay;
  }

  /**
   * Writes {@code perAggregate} messages to each of {@code aggregates} aggregates of {@code topic},
   * interleaved, in one transaction; returns the ids in write order.
   */
  protected List<String> write(String topic, int aggregates, int perAggregate) {
    List<String> ids = new ArrayList<>();
    dsl.transaction(
        tx -> {
          for (int n = 0; n < perAggregate; n++) {
            for (int a = 0; a < aggregates; a++) {
              ids.add(
                  outbox
                      .message("agg-" + a, topic, payload(a, n))
                      .headers(headers(a, n))
                      .write(tx.dsl()));
            }
          }
        });
    return ids;
  }

  protected static Map<String, Object> payload(int aggregate, int n) {
    Map<String, Object> payload = new LinkedHashMap<>();
    payload.put("aggregate", "agg-" + aggregate);
    payload.put("n", n);
    payload.put("text", "Zürich → Łódź \"quoted\" " + n);
    return payload;
  }

  protected static Map<String, String> headers(int aggregate, int n) {
    return Map.of("trace-id", "t-" + aggregate + "-" + n, "x-note", "ünïcode ✓");
  }

  /** Starts {@code count} relays of {@code topic}, each with a publisher of its own. */
  /** What a broker's consumer has received so far. */
  @FunctionalInterface
  protected interface ReceivedSoFar {
    List<Received> get() throws Exception;
  }

  /** A publisher that reaches its broker on {@code port} of {@link TestBrokers#HOST}. */
  @FunctionalInterface
  protected interface PublisherAt {
    AsyncOutboxHandler port(int port) throws Exception;
  }

  /**
   * Writes 10 aggregates of 30 messages of {@code topic} and starts a relay whose publisher reaches
   * the broker on {@code brokerPort} through a proxy that its 100th message cuts for 500 ms (an
   * outage in the middle of the drain); returns the ids in write order.
   */
  protected List<String> drainThroughAnOutage(String topic, int brokerPort, PublisherAt publisher)
      throws Exception {
    List<String> ids = write(topic, 10, 30);
    TcpProxy proxy = closeLater(new TcpProxy(TestBrokers.HOST, brokerPort));
    startRelay(topic, cutAt(100, proxy, Duration.ofMillis(500), publisher.port(proxy.port())));
    return ids;
  }

  /** A new publisher, for one relay. */
  @FunctionalInterface
  protected interface Publishers {
    AsyncOutboxHandler next() throws Exception;
  }

  /**
   * Three relays drain 20 aggregates of 25 messages of {@code topic} at once, each with a publisher
   * of {@code publishers}: every message arrives once, as written, in order per aggregate.
   */
  protected void assertThreeRelaysKeepEachAggregatesOrder(
      String topic, Publishers publishers, ReceivedSoFar received) throws Exception {
    List<String> ids = write(topic, 20, 25);
    for (int i = 0; i < 3; i++) {
      startRelay(topic, publishers.next());
    }

    awaitNothingPending(Duration.ofSeconds(60));
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> received.get().size() >= ids.size());

    assertArrivedAsWritten(ids, received.get(), true);
    assertInOrderPerAggregate(received.get(), 25);
  }

  /**
   * {@code publisher}, except that its {@code nth} message first cuts {@code proxy} (dropping every
   * connection through it, with messages in flight) and a timer restores it {@code outage} later: a
   * broker outage in the middle of a drain, at a known point.
   */
  protected AsyncOutboxHandler cutAt(
      int nth, TcpProxy proxy, Duration outage, AsyncOutboxHandler publisher) {
    AtomicInteger handled = new AtomicInteger();
    return message -> {
      if (handled.incrementAndGet() == nth) {
        proxy.cut();
        // A thread of its own: the common pool (one thread on two cores) may be busy elsewhere.
        Thread restorer =
            new Thread(
                () -> {
                  try {
                    Thread.sleep(outage.toMillis());
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                  proxy.restore();
                },
                "proxy-restorer");
        restorer.setDaemon(true);
        restorer.start();
      }
      return publisher.handle(message);
    };
  }

  /** Some message needed more than one attempt: the test's fault really happened. */
  protected void assertSomeAttemptFailed() {
    assertThat(StoredMessages.of(dsl).maxAttempts())
        .as("a message with a failed attempt")
        .isGreaterThan(1);
  }

  /** Waits until no message is pending (every one sent or dead). */
  protected void awaitNothingPending(Duration atMost) {
    await()
        .atMost(atMost)
        .pollInterval(Duration.ofMillis(50))
        .until(() -> admin.pendingCount() == 0);
  }

  /** Waits until {@code received} holds at least {@code count} messages. */
  protected static void awaitReceived(Supplier<? extends Collection<?>> received, int count) {
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> received.get().size() >= count);
  }

  /**
   * Every written message arrived, each with its id, payload and headers as written, and nothing
   * else arrived; {@code exactlyOnce} also forbids copies.
   */
  protected static void assertArrivedAsWritten(
      List<String> ids, List<Received> received, boolean exactlyOnce) throws Exception {
    if (exactlyOnce) {
      assertThat(received).as("messages received").hasSize(ids.size());
    }
    assertThat(received).extracting(Received::id).containsAll(ids);
    assertThat(ids).containsAll(received.stream().map(Received::id).toList());
    for (Received r : received) {
      JsonNode payload = JSON.readTree(r.payloadJson());
      int aggregate = Integer.parseInt(payload.get("aggregate").asText().substring(4));
      int n = payload.get("n").asInt();
      assertThat(payload)
          .as("payload of %s", r.id())
          .isEqualTo(JSON.valueToTree(payload(aggregate, n)));
      assertThat(r.headers()).as("headers of %s", r.id()).isEqualTo(headers(aggregate, n));
    }
  }

  /**
   * Per aggregate, the consumer saw {@code n} = 0, 1, 2... in order once copies of a message are
   * dropped by id (as a consumer's inbox drops them), and no copy came after a later message of its
   * aggregate: the raw sequence never goes back. Returns how many copies there were.
   */
  protected static int assertInOrderPerAggregate(List<Received> received, int perAggregate)
      throws Exception {
    int copies = assertFirstArrivalsInOrderPerAggregate(received, perAggregate);
    perAggregate(received, false)
        .forEach((aggregate, ns) -> assertThat(ns).as("%s with copies", aggregate).isSorted());
    return copies;
  }

  /**
   * Per aggregate, the first arrivals of the messages (copies dropped by id, as a consumer's inbox
   * drops them) are {@code n} = 0, 1, 2... in order; a copy may come after a later message of its
   * aggregate (a relay killed after the broker confirmed a run and before the database marked it
   * sent: the next relay sends the run again). Returns how many copies there were.
   */
  protected static int assertFirstArrivalsInOrderPerAggregate(
      List<Received> received, int perAggregate) throws Exception {
    List<Integer> expected = new ArrayList<>();
    for (int n = 0; n < perAggregate; n++) {
      expected.add(n);
    }
    perAggregate(received, true)
        .forEach((aggregate, ns) -> assertThat(ns).as(aggregate).isEqualTo(expected));
    return received.size() - (int) received.stream().map(Received::id).distinct().count();
  }

  /** The {@code n}s each aggregate received, in arrival order; only first arrivals if asked. */
  private static Map<String, List<Integer>> perAggregate(
      List<Received> received, boolean firstArrivalsOnly) throws Exception {
    Map<String, List<Integer>> ns = new LinkedHashMap<>();
    Map<String, Boolean> ids = new LinkedHashMap<>();
    for (Received r : received) {
      if (ids.put(r.id(), true) != null && firstArrivalsOnly) {
        continue;
      }
      JsonNode payload = JSON.readTree(r.payloadJson());
      ns.computeIfAbsent(payload.get("aggregate").asText(), k -> new ArrayList<>())
          .add(payload.get("n").asInt());
    }
    return ns;
  }

  /** Message {@code id} is a dead letter whose last error contains {@code reason}. */
  protected void assertDeadWithReason(String id, String reason) {
    MessageState state = admin.message(id).orElseThrow();
    assertThat(state.status()).as("status of %s", state).isEqualTo(MessageStatus.DEAD);
    assertThat(state.lastError()).contains(reason);
  }

  /**
   * Starts a relay of {@code topic} in a JVM of its own ({@link RelayProcessMain}), publishing to
   * {@code broker} at {@code address} with a 2 s lease, its output in {@code log}.
   */
  protected ChildJvm startRelayProcess(Path log, String broker, String address, String topic) {
    return ChildJvm.start(
        RelayProcessMain.class, log, broker, db.dialect().name(), db.url(), address, topic, "2000");
  }

  /**
   * Waits until the relay in {@code child} has had 100 messages confirmed (told by the database: a
   * consumer's count lags behind the relay) and holds claimed messages it has not settled, SIGKILLs
   * it, and returns the ids of the messages it held, read right after the kill (no other relay may
   * run meanwhile: what is claimed and unsent then, the killed one held).
   */
  protected List<String> killWhileHolding(ChildJvm child) {
    try {
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(20))
          .until(() -> sentCount() >= 100 && mayHoldMessages());
    } finally {
      assertThat(child.kill()).as("output: %s", child.output()).isEqualTo(ChildJvm.SIGKILLED);
    }
    List<String> held = heldByARelay();
    assertThat(held).as("messages the killed relay held claimed").isNotEmpty();
    return held;
  }

  /**
   * The ids of the messages a relay holds claimed and has not settled: the rows of outbox_message
   * with a claim token and not sent and, on PostgreSQL, the messages of the event log a relay may
   * have handed out without a settled position behind them. A relay records those as its shards'
   * read mark before it hands them out (as a claim records its token before), and whoever takes a
   * shard over after a crash copies the unsettled messages up to the mark to outbox_message with
   * that attempt counted: not sent (pending), no copy yet, seq at most the mark of a shard that a
   * relay holds. Reads each candidate's state: call it with no relay running.
   */
  protected List<String> heldByARelay() {
    List<String> held = new ArrayList<>(claimedRows());
    if (dsl.dialect().family() == SQLDialect.POSTGRES) {
      for (String id :
          dsl.select(OUTBOX_EVENT.ID)
              .from(OUTBOX_EVENT)
              .join(OUTBOX_SHARD)
              .on(OUTBOX_SHARD.SHARD.eq(OUTBOX_EVENT.SHARD))
              .where(OUTBOX_SHARD.RELAY_ID.isNotNull())
              .and(OUTBOX_EVENT.SEQ.le(OUTBOX_SHARD.READ_MARK))
              .andNotExists(
                  DSL.selectOne().from(OUTBOX_MESSAGE).where(OUTBOX_MESSAGE.ID.eq(OUTBOX_EVENT.ID)))
              .orderBy(OUTBOX_EVENT.SEQ)
              .fetch(OUTBOX_EVENT.ID)) {
        if (admin.message(id).orElseThrow().status() != MessageStatus.SENT) {
          held.add(id);
        }
      }
    }
    return held;
  }

  /** The rows of outbox_message claimed and not sent. */
  private List<String> claimedRows() {
    return dsl.select(OUTBOX_MESSAGE.ID)
        .from(OUTBOX_MESSAGE)
        .where(OUTBOX_MESSAGE.CLAIM_TOKEN.isNotNull())
        .and(OUTBOX_MESSAGE.SENT_AT.isNull())
        .fetch(OUTBOX_MESSAGE.ID);
  }

  /**
   * Whether a relay may hold messages now, cheaply enough to poll: a row claimed and not sent, or
   * on PostgreSQL a shard held with a read mark while messages are pending ({@link #heldByARelay}
   * then tells which).
   */
  private boolean mayHoldMessages() {
    if (!claimedRows().isEmpty()) {
      return true;
    }
    return dsl.dialect().family() == SQLDialect.POSTGRES
        && dsl.fetchExists(
            OUTBOX_SHARD, OUTBOX_SHARD.RELAY_ID.isNotNull().and(OUTBOX_SHARD.READ_MARK.isNotNull()))
        && admin.pendingCount() > 0;
  }

  /**
   * How many messages are sent: rows marked sent and, on PostgreSQL, the event log's messages
   * behind their shard's written position (they record no time of sending).
   */
  protected int sentCount() {
    return StoredMessages.of(dsl).sent();
  }

  /**
   * The copies in {@code received} (a message id seen before) are at most the messages a killed
   * relay {@code held}: the bound of a crash. On failure the description tells whether copies of
   * messages it did not hold came from failed attempts of the relay that took over.
   */
  protected void assertCopiesAtMostHeld(List<Received> received, List<String> held) {
    Set<String> seen = new HashSet<>();
    List<String> copied = received.stream().map(Received::id).filter(id -> !seen.add(id)).toList();
    Set<String> heldIds = new HashSet<>(held);
    assertThat(copied.size())
        .as(
            "copies (by message id); %d of them of messages not held, %d messages not held with"
                + " more than one attempt",
            copied.stream().filter(id -> !heldIds.contains(id)).count(),
            dsl.fetchCount(
                OUTBOX_MESSAGE, OUTBOX_MESSAGE.ATTEMPTS.gt(1).and(OUTBOX_MESSAGE.ID.notIn(held))))
        .isLessThanOrEqualTo(held.size());
  }

  /** Each of {@code held} (held by a killed relay) was delivered again: claimed more than once. */
  protected void assertDeliveredAgain(List<String> held) {
    assertThat(
            dsl.fetchCount(
                OUTBOX_MESSAGE, OUTBOX_MESSAGE.ID.in(held).and(OUTBOX_MESSAGE.ATTEMPTS.gt(1))))
        .as("the messages the killed relay held were delivered again")
        .isEqualTo(held.size());
  }

  /**
   * Writes one message of {@code topic} inside a writer's span and delivers it through a relay with
   * {@code publisher}, both tracing with {@code tracing}'s SDK; returns the writer's trace id.
   */
  protected String writeInASpanAndRelay(
      TestTracing tracing, String topic, AsyncOutboxHandler publisher) {
    OpenTelemetrySdk otel = tracing.sdk();
    Outbox traced = Outbox.builder(dsl).openTelemetry(otel).build();
    Span span = otel.getTracer("test").spanBuilder("place order").startSpan();
    try (Scope ignored = span.makeCurrent()) {
      dsl.transaction(tx -> traced.write(tx.dsl(), "agg-0", topic, payload(0, 0)));
    } finally {
      span.end();
    }
    OutboxRelay relay =
        closeLater(relay().openTelemetry(otel).asyncHandler(topic, publisher).build());
    relay.start();
    awaitNothingPending(Duration.ofSeconds(30));
    String traceId = span.getSpanContext().getTraceId();
    assertThat(tracing.consumerSpans()).anyMatch(s -> s.getTraceId().equals(traceId));
    return traceId;
  }

  /** The broker message carries a W3C trace context of {@code traceId}, for its consumer. */
  protected static void assertContinuesTrace(Received received, String traceId) {
    assertThat(received.headers().get("traceparent"))
        .as("traceparent of the broker message")
        .startsWith("00-" + traceId + "-");
  }
}
