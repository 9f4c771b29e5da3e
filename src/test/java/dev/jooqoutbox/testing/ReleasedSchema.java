package dev.jooqoutbox.testing;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;

import dev.jooqoutbox.internal.repository.JooqOutboxRepository;
import dev.jooqoutbox.internal.repository.NewMessage;
import dev.jooqoutbox.relay.OutboxRelay;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jooq.DSLContext;
import org.jooq.Field;

/**
 * What upgrade tests do to a database migrated with an older changelog, where the repository's
 * claim (which reads columns added later) cannot run: the columns that schema had, and a claim that
 * names only those.
 */
public final class ReleasedSchema {

  private ReleasedSchema() {}

  /** The columns of {@code outbox_message} before 005 (created by 001 to 004). */
  public static List<Field<?>> outboxColumnsBefore005() {
    return List.of(
        OUTBOX_MESSAGE.SEQ,
        OUTBOX_MESSAGE.ID,
        OUTBOX_MESSAGE.AGGREGATE,
        OUTBOX_MESSAGE.TOPIC,
        OUTBOX_MESSAGE.PAYLOAD,
        OUTBOX_MESSAGE.HEADERS,
        OUTBOX_MESSAGE.CREATED_AT,
        OUTBOX_MESSAGE.AVAILABLE_AT,
        OUTBOX_MESSAGE.ATTEMPTS,
        OUTBOX_MESSAGE.LAST_ERROR,
        OUTBOX_MESSAGE.CLAIM_TOKEN,
        OUTBOX_MESSAGE.LOCKED_UNTIL,
        OUTBOX_MESSAGE.SENT_AT,
        OUTBOX_MESSAGE.DEAD_AT);
  }

  /**
   * Writes {@code count} messages of topic "up" as rows of outbox_message, as every release before
   * the event log (009) wrote them, taking the aggregates acct-0 to acct-({@code aggregates} - 1)
   * in turn, each in its own transaction at {@code clock}'s time; returns their ids.
   */
  public static List<String> writeInTurn(DSLContext dsl, Clock clock, int count, int aggregates) {
    JooqOutboxRepository repository = new JooqOutboxRepository(dsl);
    List<String> written = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      String aggregate = "acct-" + (i % aggregates);
      String id = java.util.UUID.randomUUID().toString();
      Instant now = clock.instant();
      dsl.transaction(
          tx ->
              repository.insert(
                  tx.dsl(), new NewMessage(id, aggregate, "up", "{\"n\":0}", Map.of(), now, now)));
      written.add(id);
    }
    return written;
  }

  /**
   * Runs a relay of topic "up" at {@code clock}'s time until it has delivered {@code expected}
   * messages or drained 20 times; returns the ids in the order their handler saw them.
   */
  public static List<String> deliver(DSLContext dsl, Clock clock, int expected) {
    // The relay runs handlers of different aggregates on several threads at once.
    List<String> delivered = new CopyOnWriteArrayList<>();
    try (OutboxRelay relay =
        OutboxRelay.builder(dsl)
            .clock(clock)
            .listen(false)
            .handler("up", m -> delivered.add(m.id()))
            .build()) {
      for (int round = 0; round < 20 && delivered.size() < expected; round++) {
        relay.drainOnce(100);
      }
    }
    return delivered;
  }

  /** The columns of {@code outbox_message} before 007 (created by 001 to 006). */
  public static List<Field<?>> outboxColumnsBefore007() {
    List<Field<?>> columns = new java.util.ArrayList<>(outboxColumnsBefore005());
    columns.addAll(
        List.of(
            OUTBOX_MESSAGE.OUTCOME_UNKNOWN_AT,
            OUTBOX_MESSAGE.REMOTE_REF,
            OUTBOX_MESSAGE.RESOLUTION));
    return columns;
  }

  /**
   * Leases the oldest pending message of {@code aggregate} to {@code token} until {@code until},
   * counting an attempt, as a relay of that release did; returns its seq.
   */
  public static long leaseOldest(DSLContext dsl, String aggregate, String token, Instant until) {
    long seq =
        dsl.select(OUTBOX_MESSAGE.SEQ)
            .from(OUTBOX_MESSAGE)
            .where(OUTBOX_MESSAGE.AGGREGATE.eq(aggregate))
            .and(OUTBOX_MESSAGE.SENT_AT.isNull())
            .and(OUTBOX_MESSAGE.DEAD_AT.isNull())
            .orderBy(OUTBOX_MESSAGE.SEQ)
            .limit(1)
            .fetchSingle(OUTBOX_MESSAGE.SEQ);
    dsl.update(OUTBOX_MESSAGE)
        .set(OUTBOX_MESSAGE.CLAIM_TOKEN, token)
        .set(OUTBOX_MESSAGE.LOCKED_UNTIL, until)
        .set(OUTBOX_MESSAGE.ATTEMPTS, OUTBOX_MESSAGE.ATTEMPTS.plus(1))
        .where(OUTBOX_MESSAGE.SEQ.eq(seq))
        .execute();
    return seq;
  }

  /**
   * Gives back {@code seq}, leased to {@code token}, for a retry at {@code at} with {@code error},
   * as a relay of a release before 007 did (this release's retry also parks the row, in a column
   * that schema does not have).
   */
  public static void retryLater(DSLContext dsl, String token, long seq, String error, Instant at) {
    int updated =
        dsl.update(OUTBOX_MESSAGE)
            .setNull(OUTBOX_MESSAGE.CLAIM_TOKEN)
            .setNull(OUTBOX_MESSAGE.LOCKED_UNTIL)
            .set(OUTBOX_MESSAGE.LAST_ERROR, error)
            .set(OUTBOX_MESSAGE.AVAILABLE_AT, at)
            .where(OUTBOX_MESSAGE.SEQ.eq(seq))
            .and(OUTBOX_MESSAGE.CLAIM_TOKEN.eq(token))
            .execute();
    if (updated != 1) {
      throw new IllegalStateException("seq " + seq + " is not leased to " + token);
    }
  }
}
