package dev.jooqoutbox.testing;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;

import java.time.Instant;
import java.util.List;
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
}
