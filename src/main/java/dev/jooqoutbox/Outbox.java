package dev.jooqoutbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.jooqoutbox.internal.naming.OutboxNaming;
import dev.jooqoutbox.internal.repository.JooqOutboxRepository;
import dev.jooqoutbox.internal.repository.OutboxContext;
import dev.jooqoutbox.internal.tracing.Tracing;
import dev.jooqoutbox.internal.wakeup.AfterCommit;
import dev.jooqoutbox.internal.wakeup.WriterWakeup;
import io.opentelemetry.api.OpenTelemetry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import org.jooq.DSLContext;
import org.jooq.TransactionListener;

/**
 * Writes messages into the outbox on the caller's transaction, so a message commits or rolls back
 * with the business data it describes.
 *
 * <p>Bind it to the application's {@link DSLContext} and inject it: {@link #write(String, String,
 * Object)} joins the transaction that context's connection provider is in (Spring's, for example);
 * {@link #write(DSLContext, String, String, Object)} joins a jOOQ {@code transaction(...)}. {@link
 * #message} takes a caller id, headers and a delay.
 *
 * <p>Guarantees:
 *
 * <ul>
 *   <li>A connection in autocommit mode is refused with {@link NoTransactionException}.
 *   <li>Bad input is refused with {@link InvalidMessageException} naming the argument, before any
 *       statement runs: null or empty aggregate or topic, either over 255 characters, a topic
 *       outside {@code A-Z a-z 0-9 . _ : -}, text with NUL or a lone surrogate, a payload that does
 *       not serialize, is not JSON, is over {@link Builder#maxPayloadBytes}, or holds a number that
 *       written out in full has more digits than the object mapper reads (1000 by default;
 *       PostgreSQL's jsonb writes {@code 1e400} out as 401 digits). Numbers in a JSON text are kept
 *       exactly, never rounded to a double.
 *   <li>A caller id already stored with the same content returns that id and writes nothing; with
 *       other content it throws {@link DuplicateMessageException}. Neither aborts the caller's
 *       transaction. A caller id is an idempotency key within the retention window: once the purge
 *       (or on PostgreSQL the retention of the event log's partitions) removed its message, the id
 *       is forgotten and a write of it is a new message.
 *   <li>Unless {@link Builder#notifyOnWrite} is off, a committed write wakes relays: those of this
 *       JVM on the same database at once, after the commit, and on PostgreSQL those of other
 *       processes with one {@code NOTIFY jooq_outbox} sent from a connection of the outbox's own a
 *       few milliseconds later (coalesced over all the commits of that time). A write whose
 *       transaction rolls back wakes nobody. This needs an after-commit hook for the write's
 *       transaction: jOOQ's transactions on a configuration with {@link #transactionListener()}
 *       have one, and building an outbox adds that listener to the configuration of its {@code
 *       DSLContext} when jOOQ runs its transactions (its default transaction provider, as {@code
 *       DSL.using(dataSource, dialect)} has): so {@code dsl.transaction(tx ->
 *       outbox.write(tx.dsl(), ...))} on the context the outbox was built on gets it with nothing
 *       to add. Spring-managed transactions have the Spring integration's hook. Other transactions
 *       fall back to a {@code NOTIFY} inside the transaction on PostgreSQL (delivered at commit;
 *       such writers commit one at a time on PostgreSQL's notification lock) and to the relays'
 *       poll elsewhere. See docs/guide.md.
 *   <li>When OpenTelemetry is present (see {@link Builder#openTelemetry}), the current trace
 *       context is stored in the message's headers (W3C {@code traceparent} and {@code tracestate}
 *       with the default propagators), unless the caller set one of those headers itself.
 * </ul>
 *
 * <p>Thread-safe and immutable.
 */
public final class Outbox {

  /** The channel of the PostgreSQL notification a write sends; relays {@code LISTEN} on it. */
  public static final String NOTIFY_CHANNEL = OutboxNaming.NOTIFY_CHANNEL;

  /** Default payload limit: 1 MiB of UTF-8 JSON. */
  public static final int DEFAULT_MAX_PAYLOAD_BYTES = 1 << 20;

  private final DSLContext dsl;
  private final MessageWriter writer;

  private Outbox(Builder b) {
    // Before the outbox derives its own context: jOOQ's transactions on the caller's get the
    // after-commit wake-up (the listener is added to its configuration, once).
    boolean hooked = b.notifyOnWrite && AfterCommit.installFor(b.dsl);
    this.dsl = OutboxContext.of(b.dsl, b.name);
    JooqOutboxRepository repository = new JooqOutboxRepository(dsl, b.mapper);
    this.writer =
        new MessageWriter(
            b.name,
            repository,
            new PayloadJson(b.mapper, b.maxPayloadBytes),
            b.clock,
            b.ids != null ? b.ids : new TimeOrderedIds(b.clock),
            b.notifyOnWrite ? new WriterWakeup(repository, dsl, hooked) : null,
            Tracing.of(b.openTelemetry));
  }

  /**
   * The jOOQ listener that gives writes in jOOQ's transactions the fast wake-up. Building an outbox
   * adds it to the configuration of the {@code DSLContext} it is built on (when jOOQ's default
   * transaction provider runs its transactions); add it yourself to any other configuration your
   * writes' transactions run on, {@code DSL.using(configuration.deriveAppending(
   * Outbox.transactionListener()))}. A write in a transaction of such a configuration wakes relays
   * right after the commit, without a statement in the transaction. Nested transactions count when
   * the outermost one commits.
   */
  public static TransactionListener transactionListener() {
    return AfterCommit.jooqTransactionListener();
  }

  /** An outbox bound to {@code dsl} with every default. */
  public static Outbox create(DSLContext dsl) {
    return builder(dsl).build();
  }

  /**
   * An outbox bound to {@code dsl}, with settings to change first (payload limit, ids, clock,
   * wake-up, named outbox): see {@link Builder}. {@link #create} is this with every default.
   */
  public static Builder builder(DSLContext dsl) {
    return new Builder(dsl);
  }

  /**
   * Writes a message on the bound context's current transaction.
   *
   * @param aggregate what the message is about; messages of one aggregate are delivered in order
   * @param topic which handler receives it
   * @param payload any object Jackson serializes, a {@link JsonNode}, or a JSON text
   * @return the new message's id
   */
  public String write(String aggregate, String topic, Object payload) {
    return message(aggregate, topic, payload).write();
  }

  /** Writes a message inside {@code tx}, for example the context of a jOOQ transaction. */
  public String write(DSLContext tx, String aggregate, String topic, Object payload) {
    return message(aggregate, topic, payload).write(tx);
  }

  /** Starts a write with options: a caller id, headers, a delay. */
  public MessageWrite message(String aggregate, String topic, Object payload) {
    return new MessageWrite(aggregate, topic, payload);
  }

  /** One message being written; finish it with {@link #write()} or {@link #write(DSLContext)}. */
  public final class MessageWrite {
    private final String aggregate;
    private final String topic;
    private final Object payload;
    private String id;
    private final Map<String, String> headers = new LinkedHashMap<>();
    private Duration delay = Duration.ZERO;
    private Instant availableAt;

    private MessageWrite(String aggregate, String topic, Object payload) {
      this.aggregate = aggregate;
      this.topic = topic;
      this.payload = payload;
    }

    /**
     * Uses {@code id} as the message id and idempotency key: writing the same id with the same
     * content again is a no-op; with other content, a {@link DuplicateMessageException}; both as
     * long as the message is kept (the retention window), after which the id is forgotten.
     */
    public MessageWrite id(String id) {
      MessageRules.checkId(id);
      this.id = id;
      return this;
    }

    public MessageWrite header(String name, String value) {
      headers.put(name, value);
      return this;
    }

    public MessageWrite headers(Map<String, String> headers) {
      if (headers == null) {
        throw new InvalidMessageException("headers", "must not be null");
      }
      this.headers.putAll(headers);
      return this;
    }

    /** Delivers no earlier than {@code delay} after the write. */
    public MessageWrite delay(Duration delay) {
      if (delay == null || delay.isNegative()) {
        throw new InvalidMessageException("delay", "must be zero or positive, was " + delay);
      }
      this.delay = delay;
      this.availableAt = null;
      return this;
    }

    /** Delivers no earlier than {@code availableAt}. */
    public MessageWrite availableAt(Instant availableAt) {
      if (availableAt == null) {
        throw new InvalidMessageException("availableAt", "must not be null");
      }
      this.availableAt = availableAt;
      return this;
    }

    /** Writes on the bound context's current transaction; returns the message id. */
    public String write() {
      return write(dsl);
    }

    /** Writes inside {@code tx}; returns the message id. */
    public String write(DSLContext tx) {
      return writer.write(tx, aggregate, topic, payload, id, headers, availableAt, delay);
    }
  }

  /** Settings of an {@link Outbox}; every one has a default. */
  public static final class Builder {
    private final DSLContext dsl;
    private ObjectMapper mapper = new ObjectMapper();
    private Clock clock = Clock.systemUTC();
    private Supplier<String> ids;
    private int maxPayloadBytes = DEFAULT_MAX_PAYLOAD_BYTES;
    private boolean notifyOnWrite = true;
    private Object openTelemetry; // an OpenTelemetry; Object keeps OpenTelemetry optional
    private OutboxName name = OutboxName.DEFAULT;

    private Builder(DSLContext dsl) {
      this.dsl = Objects.requireNonNull(dsl, "dsl");
    }

    /** Serializes payloads and headers. Default: a plain {@code new ObjectMapper()}. */
    public Builder objectMapper(ObjectMapper mapper) {
      this.mapper = Objects.requireNonNull(mapper, "objectMapper");
      return this;
    }

    /** Source of {@code created_at} and {@code available_at}. Default: the UTC system clock. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** Source of message ids when the caller gives none. Default: time-ordered UUIDs (v7). */
    public Builder idSupplier(Supplier<String> ids) {
      this.ids = Objects.requireNonNull(ids, "idSupplier");
      return this;
    }

    /** Largest payload, in bytes of UTF-8 JSON. Default 1 MiB. */
    public Builder maxPayloadBytes(int maxPayloadBytes) {
      if (maxPayloadBytes <= 0) {
        throw new IllegalArgumentException(
            "maxPayloadBytes must be positive, was " + maxPayloadBytes);
      }
      this.maxPayloadBytes = maxPayloadBytes;
      return this;
    }

    /**
     * Whether a committed write wakes relays (see the class documentation), instead of leaving them
     * to their next poll. Default true. The notifier's connections come from the context this
     * outbox is bound to: bind it to one that takes connections from a pool or data source (an
     * outbox bound to a single connection on PostgreSQL always falls back to {@code NOTIFY} inside
     * the transaction).
     */
    public Builder notifyOnWrite(boolean notifyOnWrite) {
      this.notifyOnWrite = notifyOnWrite;
      return this;
    }

    /**
     * Records the current trace context of each write in its headers through the propagators of
     * {@code openTelemetry} (an optional dependency), so that the relay's span of each attempt
     * continues the writer's trace. Only the propagators' fields (W3C {@code traceparent} and
     * {@code tracestate} with the default ones) are added, and only when the caller set none of
     * them; with no current span (and no baggage) they add nothing. Default: {@code
     * GlobalOpenTelemetry.getOrNoop()}, read at each write, when the OpenTelemetry API is on the
     * class path; nothing otherwise. A rewrite of a stored id compares headers without those
     * fields.
     */
    public Builder openTelemetry(OpenTelemetry openTelemetry) {
      this.openTelemetry = Objects.requireNonNull(openTelemetry, "openTelemetry");
      return this;
    }

    /**
     * Which outbox of the database to write to (see {@link OutboxName}): also in a transaction
     * given to {@code write(tx, ...)}. Default {@link OutboxName#DEFAULT}.
     */
    public Builder name(OutboxName name) {
      this.name = Objects.requireNonNull(name, "name");
      return this;
    }

    public Outbox build() {
      return new Outbox(this);
    }
  }
}
