package dev.jooqoutbox.internal.repository;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.jooqoutbox.OutboxException;
import dev.jooqoutbox.OutboxMessage;
import java.util.Map;
import org.jooq.JSON;
import org.jooq.Record;
import org.jooq.SelectField;

/**
 * Maps outbox rows to {@link OutboxMessage}s, and headers to and from their JSON column. Rows come
 * from the database, where a person may have edited them: unreadable headers are an {@link
 * OutboxException} naming the problem, so the caller can dead-letter that one row. Public for the
 * event log ({@code internal.eventlog}), which reads the same columns from its own table.
 */
public final class MessageRows {

  /** The columns a claim returns: what a handler sees. */
  static final SelectField<?>[] FIELDS = {
    OUTBOX_MESSAGE.SEQ,
    OUTBOX_MESSAGE.ID,
    OUTBOX_MESSAGE.AGGREGATE,
    OUTBOX_MESSAGE.TOPIC,
    OUTBOX_MESSAGE.PAYLOAD,
    OUTBOX_MESSAGE.HEADERS,
    OUTBOX_MESSAGE.ATTEMPTS,
    OUTBOX_MESSAGE.CREATED_AT
  };

  private static final TypeReference<Map<String, String>> HEADERS = new TypeReference<>() {};

  private final ObjectMapper mapper;

  public MessageRows(ObjectMapper mapper) {
    this.mapper = mapper;
  }

  /** The mapper messages read their payloads with. */
  public ObjectMapper mapper() {
    return mapper;
  }

  public OutboxMessage toMessage(Record r) {
    return new OutboxMessage(
        r.get(OUTBOX_MESSAGE.SEQ),
        r.get(OUTBOX_MESSAGE.ID),
        r.get(OUTBOX_MESSAGE.AGGREGATE),
        r.get(OUTBOX_MESSAGE.TOPIC),
        r.get(OUTBOX_MESSAGE.PAYLOAD).data(),
        readHeaders(r.get(OUTBOX_MESSAGE.HEADERS)),
        r.get(OUTBOX_MESSAGE.ATTEMPTS),
        r.get(OUTBOX_MESSAGE.CREATED_AT),
        mapper);
  }

  /** The column value for {@code headers}: SQL NULL when there are none. */
  public JSON headersJson(Map<String, String> headers) {
    if (headers.isEmpty()) {
      return null;
    }
    try {
      return JSON.json(mapper.writeValueAsString(headers));
    } catch (JsonProcessingException e) {
      throw new OutboxException("headers do not serialize", e);
    }
  }

  public Map<String, String> readHeaders(JSON json) {
    if (json == null) {
      return Map.of();
    }
    Map<String, String> headers;
    try {
      headers = mapper.readValue(json.data(), HEADERS);
    } catch (JsonProcessingException e) {
      throw new OutboxException(
          "stored headers are not a JSON object of strings: " + firstLine(e.getOriginalMessage()),
          e);
    }
    if (headers == null) {
      return Map.of(); // JSON null: no headers, as SQL NULL
    }
    if (headers.containsValue(null)) {
      throw new OutboxException("stored headers are not a JSON object of strings: a value is null");
    }
    return headers;
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "unreadable";
    }
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
