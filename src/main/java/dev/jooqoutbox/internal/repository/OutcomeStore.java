package dev.jooqoutbox.internal.repository;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;

import dev.jooqoutbox.OutboxException;
import dev.jooqoutbox.RemoteRefResult;
import dev.jooqoutbox.Resolution;
import dev.jooqoutbox.ResolutionConflictException;
import dev.jooqoutbox.UnknownOutcome;
import dev.jooqoutbox.schema.tables.records.OutboxMessageRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Record;
import org.jooq.Record1;
import org.jooq.Select;
import org.jooq.UpdateSetMoreStep;
import org.jooq.impl.DSL;

/**
 * The handler outcomes beyond sent and retry, and the reconciliation of unknown outcomes. An
 * outcome-unknown row stays pending (so it keeps blocking its aggregate: the claim treats it as not
 * ready) with {@code outcome_unknown_at} set until it is resolved; every resolution is a
 * compare-and-swap on that column, so concurrent resolutions settle it once. Settles by a relay
 * also match its claim token, like {@link MessageSettler}'s.
 */
public final class OutcomeStore {

  private final DSLContext dsl;
  private final MessageRows rows;

  OutcomeStore(DSLContext dsl, MessageRows rows) {
    this.dsl = dsl;
    this.rows = rows;
  }

  /**
   * The handler of the claimed row could not learn the outcome: held for reconciliation from {@code
   * nextCheck} on. A remote reference already stored is kept.
   */
  public boolean markUnknown(
      String token, long seq, String remoteRef, String error, Instant now, Instant nextCheck) {
    return settleOwned(
        token,
        seq,
        released()
            .set(OUTBOX_MESSAGE.OUTCOME_UNKNOWN_AT, now)
            .set(OUTBOX_MESSAGE.REMOTE_REF, keepStored(remoteRef))
            .set(OUTBOX_MESSAGE.RESOLUTION, (String) null)
            .set(OUTBOX_MESSAGE.LAST_ERROR, error)
            .set(OUTBOX_MESSAGE.AVAILABLE_AT, nextCheck));
  }

  /** The claimed row is due again at {@code at}; its attempt is given back, its error kept. */
  public boolean reschedule(String token, long seq, Instant at) {
    return settleOwned(
        token,
        seq,
        released()
            .set(OUTBOX_MESSAGE.AVAILABLE_AT, at)
            .set(OUTBOX_MESSAGE.ATTEMPTS, attemptGivenBack()));
  }

  /**
   * Leases up to {@code limit} outcome-unknown rows of {@code topics} whose next check is due, in
   * seq order, without counting an attempt. Each row is taken by its own compare-and-swap on the
   * lease, so no two relays hold one row at once; the rows are few (an index of their own).
   */
  public List<UnknownClaim> claimDue(
      Set<String> topics, int limit, Duration lease, String token, Instant now) {
    if (topics.isEmpty() || limit <= 0) {
      return List.of();
    }
    List<Long> candidates = dsl.fetchValues(dueSeqs(topics, limit, now));
    List<UnknownClaim> claimed = new ArrayList<>();
    for (long seq : candidates) {
      var take =
          dsl.update(OUTBOX_MESSAGE)
              .set(OUTBOX_MESSAGE.CLAIM_TOKEN, token)
              .set(OUTBOX_MESSAGE.LOCKED_UNTIL, now.plus(lease))
              .where(OUTBOX_MESSAGE.SEQ.eq(seq))
              .and(due(topics, now));
      if (Deadlocks.retry(take::execute) == 1) {
        Record r = dsl.selectFrom(OUTBOX_MESSAGE).where(OUTBOX_MESSAGE.SEQ.eq(seq)).fetchSingle();
        try {
          claimed.add(
              new UnknownClaim(
                  rows.toMessage(r),
                  r.get(OUTBOX_MESSAGE.REMOTE_REF),
                  r.get(OUTBOX_MESSAGE.OUTCOME_UNKNOWN_AT)));
        } catch (OutboxException corrupt) {
          // Headers edited into something unreadable: left for an operator, asked again later.
          stillUnknown(token, seq, null, now.plus(lease));
        }
      }
    }
    return claimed;
  }

  /** A reconciler still does not know: asked again from {@code nextCheck} on. */
  public boolean stillUnknown(String token, long seq, String remoteRef, Instant nextCheck) {
    return settleOwned(
        token,
        seq,
        released()
            .set(OUTBOX_MESSAGE.REMOTE_REF, keepStored(remoteRef))
            .set(OUTBOX_MESSAGE.AVAILABLE_AT, nextCheck));
  }

  /** A reconciler's resolution of the row it leased; false when another resolution came first. */
  public boolean resolveClaimed(
      String token, long seq, Resolution resolution, String reason, Instant now) {
    return settleOwned(token, seq, resolved(resolution, reason, now));
  }

  /**
   * An operator's resolution of message {@code id}, whoever leases it.
   *
   * @return true when this call resolved it, false when nothing was done: no message has this id,
   *     or it was already resolved the same way
   * @throws ResolutionConflictException when it is not outcome-unknown and was not resolved this
   *     way
   */
  public boolean resolve(String id, Resolution resolution, String reason, Instant now) {
    var update = resolved(resolution, reason, now).where(OUTBOX_MESSAGE.ID.eq(id)).and(unknown());
    if (Deadlocks.retry(update::execute) == 1) {
      return true;
    }
    var row =
        dsl.select(OUTBOX_MESSAGE.RESOLUTION, OUTBOX_MESSAGE.SENT_AT, OUTBOX_MESSAGE.DEAD_AT)
            .from(OUTBOX_MESSAGE)
            .where(OUTBOX_MESSAGE.ID.eq(id))
            .fetchOne();
    if (row == null) {
      return false;
    }
    String earlier = row.value1();
    if (label(resolution).equals(earlier)) {
      return false;
    }
    String state = row.value2() != null ? "sent" : row.value3() != null ? "dead" : "pending";
    throw conflict(id, resolution, state, earlier);
  }

  /**
   * The refusal to resolve message {@code id}, which is {@code state} and not outcome-unknown, as
   * {@code resolution}; {@code earlier} is how it was resolved before, or null.
   */
  public static ResolutionConflictException conflict(
      String id, Resolution resolution, String state, String earlier) {
    return new ResolutionConflictException(
        id,
        "cannot resolve outbox message \""
            + id
            + "\" as "
            + label(resolution)
            + ": it is not outcome-unknown (it is "
            + state
            + (earlier == null ? ", and was never resolved" : ", resolved as " + earlier)
            + ")");
  }

  /** Stores {@code remoteRef} for message {@code id} if it has none, and says what it did. */
  public RemoteRefResult addRemoteRef(String id, String remoteRef) {
    var add =
        dsl.update(OUTBOX_MESSAGE)
            .set(OUTBOX_MESSAGE.REMOTE_REF, remoteRef)
            .where(OUTBOX_MESSAGE.ID.eq(id))
            .and(OUTBOX_MESSAGE.REMOTE_REF.isNull());
    if (Deadlocks.retry(add::execute) == 1) {
      return RemoteRefResult.ADDED;
    }
    return dsl.fetchExists(OUTBOX_MESSAGE, OUTBOX_MESSAGE.ID.eq(id))
        ? RemoteRefResult.KEPT
        : RemoteRefResult.NO_MESSAGE;
  }

  /** How many messages are outcome-unknown: read from the unknown index, in steps. */
  public long unknownCount() {
    long count = 0;
    long after = Long.MIN_VALUE;
    while (true) {
      List<Long> step = dsl.fetchValues(unknownSeqsAfter(after));
      count += step.size();
      if (step.size() < COUNT_STEP) {
        return count;
      }
      after = step.get(step.size() - 1);
    }
  }

  /** The outcome-unknown messages, oldest first, at most {@code limit}. */
  public List<UnknownOutcome> list(int limit) {
    return dsl.selectFrom(OUTBOX_MESSAGE)
        .where(unknown())
        .orderBy(OUTBOX_MESSAGE.SEQ)
        .limit(limit)
        .fetch(OutcomeStore::toUnknown);
  }

  /** The seqs of the outcome-unknown rows of {@code topics} due for a check and not leased. */
  static Select<Record1<Long>> dueSeqs(Set<String> topics, int limit, Instant now) {
    return DSL.select(OUTBOX_MESSAGE.SEQ)
        .from(OUTBOX_MESSAGE)
        .where(due(topics, now))
        .orderBy(OUTBOX_MESSAGE.SEQ)
        .limit(limit);
  }

  /** How many unknown rows one step of {@link #unknownCount} reads. */
  static final int COUNT_STEP = 1000;

  /**
   * One step of the unknown count: the next {@value #COUNT_STEP} unknown seqs after {@code after}.
   * Counted in small ordered steps rather than with one {@code count(*)}: PostgreSQL, before
   * statistics on the column exist (after the migration, until an analyze), expects most rows to
   * match "is not null" and scans the table for a plain count, or for a large limit; a small limit
   * in seq order is always read from the unknown index (partial, on seq).
   */
  static Select<Record1<Long>> unknownSeqsAfter(long after) {
    return DSL.select(OUTBOX_MESSAGE.SEQ)
        .from(OUTBOX_MESSAGE)
        .where(unknownIndexed())
        .and(OUTBOX_MESSAGE.SEQ.gt(after))
        .orderBy(OUTBOX_MESSAGE.SEQ)
        .limit(COUNT_STEP);
  }

  private static Condition due(Set<String> topics, Instant now) {
    return unknownIndexed()
        .and(OUTBOX_MESSAGE.TOPIC.in(topics))
        .and(OUTBOX_MESSAGE.AVAILABLE_AT.le(now))
        .and(OUTBOX_MESSAGE.LOCKED_UNTIL.isNull().or(OUTBOX_MESSAGE.LOCKED_UNTIL.le(now)));
  }

  /**
   * Outcome unknown, as the unknown index's predicate says it. Such a row is always pending: every
   * statement that makes a row sent or dead either clears the column in the same statement (the
   * resolutions) or matches a relay's claim token, which an outcome-unknown row never has (claims
   * skip it). Not adding "pending" here matters: with stale statistics PostgreSQL then preferred
   * the pending index and filtered every pending row.
   */
  static Condition unknownIndexed() {
    return OUTBOX_MESSAGE.OUTCOME_UNKNOWN_AT.isNotNull();
  }

  /** Outcome unknown and still pending. */
  static Condition unknown() {
    return OUTBOX_MESSAGE.OUTCOME_UNKNOWN_AT.isNotNull().and(ClaimQueries.pending(OUTBOX_MESSAGE));
  }

  static String label(Resolution resolution) {
    return resolution.name().toLowerCase(Locale.ROOT);
  }

  private UpdateSetMoreStep<OutboxMessageRecord> resolved(
      Resolution resolution, String reason, Instant now) {
    var update =
        released()
            .set(OUTBOX_MESSAGE.OUTCOME_UNKNOWN_AT, (Instant) null)
            .set(OUTBOX_MESSAGE.RESOLUTION, label(resolution));
    return switch (resolution) {
      case SENT -> update.set(OUTBOX_MESSAGE.SENT_AT, now);
      // The unknown attempt was no failure: it does not count against the maximum attempts.
      case RETRY ->
          update
              .set(OUTBOX_MESSAGE.AVAILABLE_AT, now)
              .set(OUTBOX_MESSAGE.ATTEMPTS, attemptGivenBack());
      case DEAD -> update.set(OUTBOX_MESSAGE.DEAD_AT, now).set(OUTBOX_MESSAGE.LAST_ERROR, reason);
    };
  }

  private boolean settleOwned(
      String token, long seq, UpdateSetMoreStep<OutboxMessageRecord> update) {
    var settle = update.where(OUTBOX_MESSAGE.SEQ.eq(seq)).and(MessageSettler.ownedBy(token));
    int changed = Deadlocks.retry(settle::execute);
    if (changed > 1) {
      throw new IllegalStateException("settled " + changed + " rows for seq " + seq);
    }
    return changed == 1;
  }

  private UpdateSetMoreStep<OutboxMessageRecord> released() {
    return dsl.update(OUTBOX_MESSAGE)
        .set(OUTBOX_MESSAGE.CLAIM_TOKEN, (String) null)
        .set(OUTBOX_MESSAGE.LOCKED_UNTIL, (Instant) null);
  }

  /** A stored remote reference is never replaced (nor lost to a null). */
  private static org.jooq.Field<String> keepStored(String remoteRef) {
    return DSL.coalesce(OUTBOX_MESSAGE.REMOTE_REF, DSL.val(remoteRef, OUTBOX_MESSAGE.REMOTE_REF));
  }

  private static org.jooq.Field<Integer> attemptGivenBack() {
    return DSL.greatest(OUTBOX_MESSAGE.ATTEMPTS.minus(1), DSL.inline(0));
  }

  private static UnknownOutcome toUnknown(OutboxMessageRecord r) {
    return new UnknownOutcome(
        r.getSeq(),
        r.getId(),
        r.getAggregate(),
        r.getTopic(),
        r.getAttempts(),
        r.getOutcomeUnknownAt(),
        r.getRemoteRef(),
        r.getLastError(),
        r.getAvailableAt());
  }
}
