package dev.jooqoutbox;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * One message as the relay hands it to a handler. Immutable.
 *
 * <p>{@link #attempt()} counts the attempts of this message including this one (1 on the first), so
 * a handler can tell a retry after a failure. A delivery that does not count as an attempt (a
 * {@code RescheduleException}, an unknown outcome resolved {@code RETRY}) gives its number back:
 * the next delivery has the same {@code attempt()}. {@link #toString()} never prints the payload,
 * so logging a message cannot leak its content.
 */
public final class OutboxMessage {

  private final long seq;
  private final String id;
  private final String aggregate;
  private final String topic;
  private final String payloadJson;
  private final Map<String, String> headers;
  private final int attempt;
  private final Instant createdAt;
  private final ObjectMapper mapper;

  /**
   * A message as the relay hands it out. The relay builds them; a test of an application's own
   * handler may too, to call it without a relay ({@code mapper} reads the payload for {@link
   * #payload()} and {@link #payloadAs}).
   *
   * @throws NullPointerException when {@code id}, {@code aggregate}, {@code topic}, {@code
   *     payloadJson}, {@code headers}, {@code createdAt} or {@code mapper} is null
   */
  public OutboxMessage(
      long seq,
      String id,
      String aggregate,
      String topic,
      String payloadJson,
      Map<String, String> headers,
      int attempt,
      Instant createdAt,
      ObjectMapper mapper) {
    this.seq = seq;
    this.id = Objects.requireNonNull(id, "id");
    this.aggregate = Objects.requireNonNull(aggregate, "aggregate");
    this.topic = Objects.requireNonNull(topic, "topic");
    this.payloadJson = Objects.requireNonNull(payloadJson, "payloadJson");
    this.headers = Map.copyOf(headers);
    this.attempt = attempt;
    this.createdAt = Objects.requireNonNull(createdAt, "createdAt");
    this.mapper = Objects.requireNonNull(mapper, "mapper");
  }

  /** Position in the outbox: messages of one aggregate are delivered in increasing seq. */
  public long seq() {
    return seq;
  }

  /** The message id: the caller's idempotency key, or a generated time-ordered UUID. */
  public String id() {
    return id;
  }

  /**
   * The aggregate the message belongs to, as written: messages of one aggregate are delivered one
   * at a time, in order.
   */
  public String aggregate() {
    return aggregate;
  }

  /** The topic it was written with: the relay hands it to that topic's handler. */
  public String topic() {
    return topic;
  }

  /** The payload as JSON text, as the database returned it (PostgreSQL normalizes jsonb). */
  public String payloadJson() {
    return payloadJson;
  }

  /** The payload as a Jackson tree. */
  public JsonNode payload() {
    try {
      return mapper.readTree(payloadJson);
    } catch (JsonProcessingException e) {
      throw new OutboxException("payload of message \"" + id + "\" is not valid JSON", e);
    }
  }

  /** The payload read into {@code type} with the relay's {@code ObjectMapper}. */
  public <T> T payloadAs(Class<T> type) {
    try {
      return mapper.readValue(payloadJson, type);
    } catch (JsonProcessingException e) {
      throw new OutboxException(
          "payload of message \"" + id + "\" does not read as " + type.getName(), e);
    }
  }

  /** Headers given at write time; empty when none. */
  public Map<String, String> headers() {
    return headers;
  }

  /**
   * Which attempt this is, starting at 1: one more after each failed attempt, the same again after
   * a reschedule or a {@code RETRY} resolution. Not a count of deliveries.
   */
  public int attempt() {
    return attempt;
  }

  /** When it was written: the writer's clock at {@code Outbox.write}, not the commit's time. */
  public Instant createdAt() {
    return createdAt;
  }

  @Override
  public String toString() {
    return String.format(
        "OutboxMessage[id=%s, seq=%s, aggregate=%s, topic=%s, attempt=%s, createdAt=%s]",
        id, seq, aggregate, topic, attempt, createdAt);
  }
}
