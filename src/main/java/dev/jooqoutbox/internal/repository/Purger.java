package dev.jooqoutbox.internal.repository;

import static dev.jooqoutbox.schema.Tables.INBOX_MESSAGE;
import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;

import dev.jooqoutbox.PurgeResult;
import java.time.Instant;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Table;

/**
 * Deletes sent messages and inbox rows older than a cutoff in bounded batches, each its own
 * statement (and transaction), so no long lock is held. Pending messages and dead letters are never
 * deleted.
 */
record Purger(DSLContext dsl, OutboxDialect dialect) {

  PurgeResult purge(Instant cutoff, int batchSize) {
    if (batchSize <= 0) {
      throw new IllegalArgumentException("batchSize must be positive, was " + batchSize);
    }
    long outbox = inBatches(OUTBOX_MESSAGE, TableKeys.OUTBOX_SEQ, sentBefore(cutoff), batchSize);
    long inbox =
        inBatches(INBOX_MESSAGE, TableKeys.INBOX, INBOX_MESSAGE.SEEN_AT.lt(cutoff), batchSize);
    return new PurgeResult(outbox, inbox);
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

  private long inBatches(Table<?> table, Field<?>[] key, Condition old, int batchSize) {
    long total = 0;
    int deleted;
    do {
      deleted = dialect.deleteBatch(dsl, table, key, old, batchSize).execute();
      total += deleted;
    } while (deleted == batchSize);
    return total;
  }
}
