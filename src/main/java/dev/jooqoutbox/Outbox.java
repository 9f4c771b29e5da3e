package dev.jooqoutbox;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import dev.jooqoutbox.repository.JooqOutboxRepository;
import dev.jooqoutbox.repository.NewMessage;
import java.math.BigDecimal;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

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
 *       transaction.
 *   <li>On PostgreSQL (unless {@link Builder#notifyOnWrite} is off) the write also issues {@code
 *       NOTIFY jooq_outbox}, which PostgreSQL delivers only when the transaction commits, so a
 *       listening relay wakes at once.
 * </ul>
 *
 * <p>Thread-safe and immutable.
 */
public final class Outbox {

  /** The channel of the PostgreSQL notification a write sends; relays {@code LISTEN} on it. */
  public static final String NOTIFY_CHANNEL = "jooq_outbox";

  /** Default payload limit: 1 MiB of UTF-8 JSON. */
  public static final int DEFAULT_MAX_PAYLOAD_BYTES = 1 << 20;

  private final DSLContext dsl;
  private final ObjectMapper mapper;
  private final ObjectReader strictReader;
  private final Clock clock;
  private final Supplier<String> ids;
  private final int maxPayloadBytes;
  private final boolean notifyOnWrite;

  private Outbox(Builder b) {
    this.dsl = b.dsl;
    this.mapper = b.mapper;
    // Floats as BigDecimal: read as doubles, a JSON text's 1e400 would be stored as the string
    // "Infinity" and a 30-digit decimal rounded to 17 digits.
    this.strictReader =
        b.mapper
            .reader()
            .with(
                DeserializationFeature.FAIL_ON_TRAILING_TOKENS,
                DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
    this.clock = b.clock;
    this.ids = b.ids != null ? b.ids : new TimeOrderedIds(b.clock);
    this.maxPayloadBytes = b.maxPayloadBytes;
    this.notifyOnWrite = b.notifyOnWrite;
  }

  /** An outbox bound to {@code dsl} with every default. */
  public static Outbox create(DSLContext dsl) {
    return builder(dsl).build();
  }

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
     * content again is a no-op; with other content, a {@link DuplicateMessageException}.
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
      Objects.requireNonNull(tx, "tx");
      MessageRules.checkAggregate(aggregate);
      MessageRules.checkTopic(topic);
      MessageRules.checkHeaders(headers);
      String json = toJson(payload);
      Instant now = clock.instant();
      NewMessage message =
          new NewMessage(
              id != null ? id : ids.get(),
              aggregate,
              topic,
              json,
              headers,
              now,
              availableAt != null ? availableAt : now.plus(delay));
      requireTransaction(tx);
      JooqOutboxRepository repository = new JooqOutboxRepository(tx, mapper);
      if (!repository.insert(tx, message)) {
        NewMessage stored =
            repository
                .findStored(tx, message.id())
                .orElseThrow(() -> new DuplicateMessageException(message.id()));
        if (!sameContent(stored, message)) {
          throw new DuplicateMessageException(message.id());
        }
        return message.id();
      }
      if (notifyOnWrite && tx.dialect().family() == SQLDialect.POSTGRES) {
        // Delivered on commit only; identical notifications in one transaction fold into one.
        tx.select(
                DSL.function("pg_notify", Object.class, DSL.inline(NOTIFY_CHANNEL), DSL.val(topic)))
            .execute();
      }
      return message.id();
    }
  }

  private static void requireTransaction(DSLContext tx) {
    boolean autoCommit = tx.connectionResult(Connection::getAutoCommit);
    if (autoCommit) {
      throw new NoTransactionException(
          "Outbox.write needs a transaction to join, but the connection is in autocommit mode:"
              + " write inside dsl.transaction(...) or a transaction your framework manages");
    }
  }

  /**
   * JSON equality with numbers compared by value: PostgreSQL's jsonb gives back what Jackson wrote
   * as {@code 1.0E10} as {@code 10000000000}, and {@code -0.0} as {@code 0.0}.
   */
  private static final Comparator<JsonNode> SAME_VALUE =
      (a, b) -> {
        if (a.isNumber() && b.isNumber()) {
          return a.decimalValue().compareTo(b.decimalValue());
        }
        return a.equals(b) ? 0 : 1;
      };

  private boolean sameContent(NewMessage stored, NewMessage given) {
    return stored.aggregate().equals(given.aggregate())
        && stored.topic().equals(given.topic())
        && stored.headers().equals(given.headers())
        && readTree(stored.payloadJson()).equals(SAME_VALUE, readTree(given.payloadJson()));
  }

  private JsonNode readTree(String json) {
    try {
      return strictReader.readTree(json);
    } catch (JsonProcessingException e) {
      throw new OutboxException("stored payload is not valid JSON", e);
    }
  }

  private String toJson(Object payload) {
    if (payload == null) {
      throw new InvalidMessageException("payload", "must not be null");
    }
    String json;
    try {
      if (payload instanceof String text) {
        JsonNode tree = strictReader.readTree(text);
        // Jackson reads empty or blank text as a missing node, and would write that as null.
        json = tree.isMissingNode() ? null : mapper.writeValueAsString(tree);
      } else {
        json = mapper.writeValueAsString(payload);
      }
    } catch (JsonProcessingException | RuntimeException e) {
      throw new InvalidMessageException(
          "payload",
          (payload instanceof String ? "is not a JSON text: " : "does not serialize to JSON: ")
              + firstLine(e.getMessage()),
          e);
    } catch (StackOverflowError e) {
      throw new InvalidMessageException("payload", "does not serialize to JSON (a cycle?)", e);
    }
    if (json == null) {
      throw new InvalidMessageException("payload", "is not a JSON text: it is empty or blank");
    }
    long bytes = utf8Length(json);
    if (bytes > maxPayloadBytes) {
      throw new InvalidMessageException(
          "payload", "is " + bytes + " bytes of JSON, over the limit of " + maxPayloadBytes);
    }
    // Jackson writes a lone surrogate as is (the database would store '?' or refuse it) and NUL
    // as an escape (PostgreSQL cannot store it in jsonb); either would not come back verbatim.
    String problem = MessageRules.unstorable(json);
    if (problem == null && json.contains("\\u")) {
      problem = unstorableText(readTree(json));
    }
    if (problem == null && NUMBER_TO_CHECK.matcher(json).find()) {
      try {
        problem = unreadableNumber(readTree(json));
      } catch (OutboxException unreadable) { // a number the mapper wrote but cannot read
        problem = "does not read back as JSON: " + firstLine(unreadable.getCause().getMessage());
      }
    }
    if (problem != null) {
      throw new InvalidMessageException("payload", problem + " (it cannot be stored verbatim)");
    }
    return json;
  }

  /**
   * Where a number may be long once written out in full: an exponent, or a long run of digits. Only
   * then is the payload read again to look at its numbers (the match may be inside a string).
   */
  private static final Pattern NUMBER_TO_CHECK = Pattern.compile("[0-9][eE][+-]?[0-9]|[0-9]{1001}");

  /**
   * Why the first number in {@code node} could not be read back, or null. PostgreSQL's jsonb keeps
   * numbers as numeric and gives them back written out in full ({@code 1e400} as 401 digits), and
   * Jackson refuses to read a number of more digits than its stream constraints allow.
   */
  private String unreadableNumber(JsonNode node) {
    if (node.isNumber()) {
      BigDecimal value = node.decimalValue();
      long digits =
          value.scale() > 0
              ? Math.max(1L, (long) value.precision() - value.scale()) + value.scale()
              : (long) value.precision() - value.scale();
      int max = mapper.getFactory().streamReadConstraints().getMaxNumberLength();
      return digits <= max
          ? null
          : "has a number of "
              + digits
              + " digits written out in full, over the "
              + max
              + " the object mapper reads";
    }
    for (JsonNode child : node) {
      String problem = unreadableNumber(child);
      if (problem != null) {
        return problem;
      }
    }
    return null;
  }

  /** The first text (value or field name) in {@code node} that cannot be stored verbatim. */
  private static String unstorableText(JsonNode node) {
    if (node.isTextual()) {
      return MessageRules.unstorable(node.textValue());
    }
    var names = node.fieldNames();
    while (names.hasNext()) {
      String problem = MessageRules.unstorable(names.next());
      if (problem != null) {
        return problem;
      }
    }
    for (JsonNode child : node) {
      String problem = unstorableText(child);
      if (problem != null) {
        return problem;
      }
    }
    return null;
  }

  private static long utf8Length(String s) {
    long bytes = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        bytes += 1;
      } else if (c < 0x800) {
        bytes += 2;
      } else if (Character.isHighSurrogate(c)) {
        bytes += 4;
        i++;
      } else {
        bytes += 3;
      }
    }
    return bytes;
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "unknown error";
    }
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }

  /** Settings of an {@link Outbox}; every one has a default. */
  public static final class Builder {
    private final DSLContext dsl;
    private ObjectMapper mapper = new ObjectMapper();
    private Clock clock = Clock.systemUTC();
    private Supplier<String> ids;
    private int maxPayloadBytes = DEFAULT_MAX_PAYLOAD_BYTES;
    private boolean notifyOnWrite = true;

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
     * Whether a write on PostgreSQL issues {@code NOTIFY}, so relays wake at commit instead of at
     * their next poll. Default true. PostgreSQL serializes the commits of notifying transactions on
     * one lock; turn it off when many concurrent writers matter more than milliseconds of latency
     * (see docs/guide.md). Ignored on other dialects.
     */
    public Builder notifyOnWrite(boolean notifyOnWrite) {
      this.notifyOnWrite = notifyOnWrite;
      return this;
    }

    public Outbox build() {
      return new Outbox(this);
    }
  }
}
