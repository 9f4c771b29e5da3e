package dev.jooqoutbox.internal.repository;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * A validated message about to be inserted: the payload is already JSON text. Built by {@code
 * Outbox}; the repository does not validate again.
 */
public record NewMessage(
    String id,
    String aggregate,
    String topic,
    String payloadJson,
    Map<String, String> headers,
    Instant createdAt,
    Instant availableAt) {

  public NewMessage {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(aggregate, "aggregate");
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(payloadJson, "payloadJson");
    headers = Map.copyOf(headers);
    Objects.requireNonNull(createdAt, "createdAt");
    Objects.requireNonNull(availableAt, "availableAt");
  }
}
