package dev.jooqoutbox.testing;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.jooqoutbox.MessageState;
import dev.jooqoutbox.MessageStatus;
import dev.jooqoutbox.OutboxAdmin;
import dev.jooqoutbox.schema.tables.records.OutboxMessageRecord;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import org.jooq.DSLContext;

/**
 * One message as a relay test reads it, wherever the database keeps it: {@link OutboxAdmin#message}
 * for what every storage records, and its row of outbox_message where it has one (every message on
 * MariaDB and SQLite; on PostgreSQL a message that needed a state of its own, copied there from the
 * event log). A message the log delivered has no row: it records no time of sending, no claim token
 * and no lease of its own (a relay leases whole shards), and counts one attempt.
 */
public record MessageRow(MessageState state, OutboxMessageRecord row) {

  /** Message {@code id} of {@code dsl}'s default outbox, its state read at {@code clock}'s time. */
  public static MessageRow of(DSLContext dsl, Clock clock, String id) {
    MessageState state =
        OutboxAdmin.create(dsl, clock)
            .message(id)
            .orElseThrow(() -> new AssertionError("no message " + id));
    return new MessageRow(
        state, dsl.selectFrom(OUTBOX_MESSAGE).where(OUTBOX_MESSAGE.ID.eq(id)).fetchOne());
  }

  /** Whether the database records its times, token and lease: it has a row of outbox_message. */
  public boolean hasRow() {
    return row != null;
  }

  public MessageStatus status() {
    return state.status();
  }

  public boolean isSent() {
    return state.status() == MessageStatus.SENT;
  }

  /** Asserts that it is sent, and at {@code at} where the database records when. */
  public void assertSentAt(Instant at) {
    assertThat(isSent()).as("sent: %s", state).isTrue();
    if (row != null) {
      assertThat(row.getSentAt()).as("sent at").isEqualTo(at);
    }
  }

  public long getSeq() {
    return state.seq();
  }

  public String getId() {
    return state.id();
  }

  public String getAggregate() {
    return state.aggregate();
  }

  public int getAttempts() {
    return state.attempts();
  }

  public String getLastError() {
    return state.lastError();
  }

  public Instant getCreatedAt() {
    return state.createdAt();
  }

  public Instant getAvailableAt() {
    return state.availableAt();
  }

  public Instant getDeadAt() {
    return state.deadAt();
  }

  public Instant getOutcomeUnknownAt() {
    return state.outcomeUnknownAt();
  }

  public String getRemoteRef() {
    return state.remoteRef();
  }

  public Map<String, String> getHeaders() {
    return state.headers();
  }

  /** The claim token of its row; null for a message of the log (leased by shard, not by row). */
  public String getClaimToken() {
    return row == null ? null : row.getClaimToken();
  }

  /** The lease of its row; null for a message of the log. */
  public Instant getLockedUntil() {
    return row == null ? null : row.getLockedUntil();
  }

  /** How a reconciliation or an operator resolved it; only a row records it. */
  public String getResolution() {
    return row == null ? null : row.getResolution();
  }
}
