package dev.jooqoutbox;

import java.time.Instant;
import java.util.Map;

/**
 * One message as an operator sees it, read at one moment. {@link #toString()} leaves out the
 * payload and the headers, so logging a state cannot leak their content.
 *
 * @param status derived from the row at the moment it was read
 * @param attempts claims counted so far (a claim whose relay crashed counts too)
 * @param lastError the error of the last failed attempt; null when none, or once sent
 * @param availableAt when a relay may claim it (later than {@code createdAt} after a failure or a
 *     delay)
 * @param leasedUntil when the current lease runs out; null unless {@code LEASED} or an expired
 *     lease is still recorded
 * @param sentAt when it was marked sent; null unless {@code SENT}
 * @param deadAt when it was dead-lettered; null unless {@code DEAD}
 * @param outcomeUnknownAt when its handler reported the outcome unknown; null unless {@code
 *     OUTCOME_UNKNOWN}
 * @param remoteRef the remote system's reference given with an unknown outcome; kept once set
 * @param headers the headers it was written with; empty when none
 */
public record MessageState(
    long seq,
    String id,
    String aggregate,
    String topic,
    MessageStatus status,
    int attempts,
    String lastError,
    Instant createdAt,
    Instant availableAt,
    Instant leasedUntil,
    Instant sentAt,
    Instant deadAt,
    String payloadJson,
    Instant outcomeUnknownAt,
    String remoteRef,
    Map<String, String> headers) {

  public MessageState {
    headers = headers == null ? Map.of() : Map.copyOf(headers);
  }

  @Override
  public String toString() {
    return String.format(
        "MessageState[status=%s, id=%s, attempts=%s, availableAt=%s, leasedUntil=%s, seq=%s,"
            + " topic=%s, aggregate=%s, lastError=%s, remoteRef=%s]",
        status,
        id,
        attempts,
        availableAt,
        leasedUntil,
        seq,
        topic,
        aggregate,
        lastError,
        remoteRef);
  }
}
