package dev.jooqoutbox.internal.repository;

import static dev.jooqoutbox.schema.Tables.INBOX_MESSAGE;
import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;

import dev.jooqoutbox.PurgeResult;
import java.time.Instant;
import org.jooq.Condition;
import org.jooq.DSLContext;

/**
 * Deletes sent messages and inbox rows older than a cutoff in bounded batches (see {@link
 * PurgeRun}), each its own statement (and transaction), so no long lock is held. Pending messages
 * and dead letters are never deleted.
 */
record Purger(DSLContext dsl) {

  /** Deletes everything older than {@code cutoff}, one batch after the other. */
  PurgeResult purge(Instant cutoff, int batchSize) {
    PurgeRun run = start(cutoff, batchSize);
    while (run.next()) {
      // each call deletes one batch
    }
    return run.deleted();
  }

  /**
   * A purge of what is older than {@code cutoff} that deletes one batch per {@link PurgeRun#next}.
   */
  PurgeRun start(Instant cutoff, int batchSize) {
    if (batchSize <= 0) {
      throw new IllegalArgumentException("batchSize must be positive, was " + batchSize);
    }
    return new BatchedPurgeRun(
        new PurgeBatches(dsl, OUTBOX_MESSAGE, OUTBOX_MESSAGE.SENT_AT, cutoff, batchSize),
        new PurgeBatches(dsl, INBOX_MESSAGE, INBOX_MESSAGE.SEEN_AT, cutoff, batchSize));
  }

  /** What {@link #purge} with {@code cutoff} would delete now, counted; deletes nothing. */
  PurgeResult count(Instant cutoff) {
    return new PurgeResult(
        dsl.fetchCount(OUTBOX_MESSAGE, sentBefore(cutoff)),
        dsl.fetchCount(INBOX_MESSAGE, INBOX_MESSAGE.SEEN_AT.lt(cutoff)));
  }

  /** The sent messages a purge with {@code cutoff} deletes. */
  static Condition sentBefore(Instant cutoff) {
    return OUTBOX_MESSAGE.SENT_AT.lt(cutoff);
  }
}
