package dev.jooqoutbox.internal.repository;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;

import dev.jooqoutbox.DeadLetter;
import dev.jooqoutbox.DeadLetterPage;
import dev.jooqoutbox.DeadLetterQuery;
import dev.jooqoutbox.MessageState;
import dev.jooqoutbox.MessageStatus;
import dev.jooqoutbox.schema.tables.records.OutboxMessageRecord;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;

/** What an operator reads and changes one message at a time: dead letters, requeue, state. */
final class DeadLetterQueries {

  private final DSLContext dsl;
  private final MessageRows rows;

  DeadLetterQueries(DSLContext dsl, MessageRows rows) {
    this.dsl = dsl;
    this.rows = rows;
  }

  DeadLetterPage deadLetters(DeadLetterQuery query) {
    Condition where =
        OUTBOX_MESSAGE.DEAD_AT.isNotNull().and(OUTBOX_MESSAGE.SEQ.gt(query.afterSeq()));
    if (query.topic() != null) {
      where = where.and(OUTBOX_MESSAGE.TOPIC.eq(query.topic()));
    }
    if (query.aggregate() != null) {
      where = where.and(OUTBOX_MESSAGE.AGGREGATE.eq(query.aggregate()));
    }
    if (query.deadFrom() != null) {
      where = where.and(OUTBOX_MESSAGE.DEAD_AT.ge(query.deadFrom()));
    }
    if (query.deadBefore() != null) {
      where = where.and(OUTBOX_MESSAGE.DEAD_AT.lt(query.deadBefore()));
    }
    // One more than the page tells whether there is a next page, without counting them all.
    List<DeadLetter> letters =
        dsl.selectFrom(OUTBOX_MESSAGE)
            .where(where)
            .orderBy(OUTBOX_MESSAGE.SEQ)
            .limit(query.limit() + 1)
            .fetch(DeadLetterQueries::toDeadLetter);
    if (letters.size() <= query.limit()) {
      return new DeadLetterPage(letters, Optional.empty());
    }
    List<DeadLetter> page = letters.subList(0, query.limit());
    return new DeadLetterPage(page, Optional.of(query.afterSeq(page.get(page.size() - 1).seq())));
  }

  /** Requeues the dead letters {@code which} selects: attempt count 0, available at {@code now}. */
  int requeue(Condition which, Instant now) {
    return dsl.update(OUTBOX_MESSAGE)
        .set(OUTBOX_MESSAGE.DEAD_AT, (Instant) null)
        .set(OUTBOX_MESSAGE.ATTEMPTS, 0)
        .set(OUTBOX_MESSAGE.LAST_ERROR, (String) null)
        .set(OUTBOX_MESSAGE.AVAILABLE_AT, now)
        .set(OUTBOX_MESSAGE.RESOLUTION, (String) null) // a new life: no earlier resolution holds
        .set(OUTBOX_MESSAGE.CLAIM_TOKEN, (String) null)
        .set(OUTBOX_MESSAGE.LOCKED_UNTIL, (Instant) null)
        .where(OUTBOX_MESSAGE.DEAD_AT.isNotNull())
        .and(OUTBOX_MESSAGE.SENT_AT.isNull())
        .and(which)
        .execute();
  }

  Optional<MessageState> message(String id, Instant now) {
    return dsl.selectFrom(OUTBOX_MESSAGE)
        .where(OUTBOX_MESSAGE.ID.eq(id))
        .fetchOptional()
        .map(r -> toState(r, now));
  }

  static Condition byId(String id) {
    return OUTBOX_MESSAGE.ID.eq(id);
  }

  static Condition byTopic(String topic) {
    return OUTBOX_MESSAGE.TOPIC.eq(topic);
  }

  static Condition any() {
    return DSL.noCondition();
  }

  private MessageState toState(OutboxMessageRecord r, Instant now) {
    MessageStatus status;
    if (r.getSentAt() != null) {
      status = MessageStatus.SENT;
    } else if (r.getDeadAt() != null) {
      status = MessageStatus.DEAD;
    } else if (r.getOutcomeUnknownAt() != null) {
      status = MessageStatus.OUTCOME_UNKNOWN; // also while a reconciler holds its lease
    } else if (r.getLockedUntil() != null && r.getLockedUntil().isAfter(now)) {
      status = MessageStatus.LEASED;
    } else {
      status = MessageStatus.PENDING;
    }
    return new MessageState(
        r.getSeq(),
        r.getId(),
        r.getAggregate(),
        r.getTopic(),
        status,
        r.getAttempts(),
        r.getLastError(),
        r.getCreatedAt(),
        r.getAvailableAt(),
        r.getLockedUntil(),
        r.getSentAt(),
        r.getDeadAt(),
        r.getPayload().data(),
        r.getOutcomeUnknownAt(),
        r.getRemoteRef(),
        rows.readHeaders(r.getHeaders()));
  }

  private static DeadLetter toDeadLetter(OutboxMessageRecord r) {
    return new DeadLetter(
        r.getSeq(),
        r.getId(),
        r.getAggregate(),
        r.getTopic(),
        r.getAttempts(),
        r.getLastError(),
        r.getCreatedAt(),
        r.getDeadAt(),
        r.getPayload().data());
  }
}
