package dev.jooqoutbox.internal.repository;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;

import dev.jooqoutbox.schema.tables.records.OutboxMessageRecord;
import java.time.Instant;
import java.util.Collection;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Update;
import org.jooq.UpdateSetMoreStep;

/**
 * Settles claimed rows. Every statement is a compare-and-swap on the claim token: a relay whose row
 * was claimed again by another relay after its lease ran out changes nothing (0 rows is a lost
 * race, not an error); more rows than asked is a bug.
 */
final class MessageSettler {

  private final DSLContext dsl;

  MessageSettler(DSLContext dsl) {
    this.dsl = dsl;
  }

  int markSent(String claimToken, Collection<Long> seqs, Instant now) {
    if (seqs.isEmpty()) {
      return 0;
    }
    var update =
        released()
            .set(OUTBOX_MESSAGE.SENT_AT, now)
            .set(OUTBOX_MESSAGE.LAST_ERROR, (String) null)
            .where(OUTBOX_MESSAGE.SEQ.in(seqs))
            .and(ownedBy(claimToken));
    return Deadlocks.retry(update::execute);
  }

  boolean retryLater(String claimToken, long seq, String error, Instant nextAttemptAt) {
    return settleOne(
        claimToken,
        seq,
        released()
            .set(OUTBOX_MESSAGE.LAST_ERROR, error)
            .set(OUTBOX_MESSAGE.AVAILABLE_AT, nextAttemptAt));
  }

  boolean deadLetter(String claimToken, long seq, String error, Instant now) {
    return settleOne(
        claimToken,
        seq,
        released().set(OUTBOX_MESSAGE.LAST_ERROR, error).set(OUTBOX_MESSAGE.DEAD_AT, now));
  }

  boolean deadLetterExhausted(
      String claimToken, long seq, int maxAttempts, String error, Instant now) {
    return settleOne(
        claimToken,
        seq,
        released()
            .set(OUTBOX_MESSAGE.ATTEMPTS, maxAttempts)
            .set(OUTBOX_MESSAGE.LAST_ERROR, error)
            .set(OUTBOX_MESSAGE.DEAD_AT, now));
  }

  int release(String claimToken, Collection<Long> seqs) {
    return release(dsl, claimToken, seqs);
  }

  /** As {@link #release(String, Collection)}, on {@code ctx}: inside a claim's own transaction. */
  int release(DSLContext ctx, String claimToken, Collection<Long> seqs) {
    if (seqs.isEmpty()) {
      return 0;
    }
    var update =
        released(ctx)
            .set(OUTBOX_MESSAGE.ATTEMPTS, OUTBOX_MESSAGE.ATTEMPTS.minus(1))
            .where(OUTBOX_MESSAGE.SEQ.in(seqs))
            .and(ownedBy(claimToken));
    return Deadlocks.retry(update::execute);
  }

  /**
   * Moves the lease end of the rows {@code seqs} still owned by one of {@code claimTokens} to
   * {@code until}. Rows another relay has claimed since (their token changed) and settled rows are
   * untouched.
   */
  int extendLeases(Collection<String> claimTokens, Collection<Long> seqs, Instant until) {
    if (claimTokens.isEmpty() || seqs.isEmpty()) {
      return 0;
    }
    var update = leaseExtension(dsl, claimTokens, seqs, until);
    return Deadlocks.retry(update::execute);
  }

  /**
   * The heartbeat's statement. By seq (primary-key probes, as many as the relay has in flight) and
   * guarded by the tokens: by the tokens alone no index serves it, and it read every pending row.
   */
  static Update<OutboxMessageRecord> leaseExtension(
      DSLContext ctx, Collection<String> claimTokens, Collection<Long> seqs, Instant until) {
    return ctx.update(OUTBOX_MESSAGE)
        .set(OUTBOX_MESSAGE.LOCKED_UNTIL, until)
        .where(OUTBOX_MESSAGE.SEQ.in(seqs))
        .and(OUTBOX_MESSAGE.CLAIM_TOKEN.in(claimTokens))
        .and(ClaimQueries.pendingBySeq(OUTBOX_MESSAGE));
  }

  /** An update that ends the lease; every settle does. */
  private UpdateSetMoreStep<OutboxMessageRecord> released() {
    return released(dsl);
  }

  private static UpdateSetMoreStep<OutboxMessageRecord> released(DSLContext ctx) {
    return ctx.update(OUTBOX_MESSAGE)
        .set(OUTBOX_MESSAGE.CLAIM_TOKEN, (String) null)
        .set(OUTBOX_MESSAGE.LOCKED_UNTIL, (Instant) null);
  }

  private boolean settleOne(
      String claimToken, long seq, UpdateSetMoreStep<OutboxMessageRecord> update) {
    var settle = update.where(OUTBOX_MESSAGE.SEQ.eq(seq)).and(ownedBy(claimToken));
    int rows = Deadlocks.retry(settle::execute);
    if (rows > 1) {
      throw new IllegalStateException("settled " + rows + " rows for seq " + seq);
    }
    return rows == 1;
  }

  static Condition ownedBy(String claimToken) {
    return OUTBOX_MESSAGE.CLAIM_TOKEN.eq(claimToken).and(ClaimQueries.pendingBySeq(OUTBOX_MESSAGE));
  }
}
