package dev.jooqoutbox;

import java.time.Instant;

/**
 * A dead-lettered message: it failed its last attempt, or crashes used its attempts. It stays until
 * requeued or purged on purpose. {@link #toString()} leaves out the payload.
 */
public record DeadLetter(
    long seq,
    String id,
    String aggregate,
    String topic,
    int attempts,
    String lastError,
    Instant createdAt,
    Instant deadAt,
    String payloadJson) {

  @Override
  public String toString() {
    return String.format(
        "DeadLetter[id=%s, seq=%s, topic=%s, aggregate=%s, attempts=%s, deadAt=%s, lastError=%s]",
        id, seq, topic, aggregate, attempts, deadAt, lastError);
  }
}
