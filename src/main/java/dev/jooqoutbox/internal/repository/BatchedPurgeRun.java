package dev.jooqoutbox.internal.repository;

import dev.jooqoutbox.PurgeResult;

/**
 * A purge on the database: sent outbox messages first, then inbox rows, each batch its own
 * statements and transactions. Not thread-safe.
 */
final class BatchedPurgeRun implements PurgeRun {

  private final PurgeBatches outbox;
  private final PurgeBatches inbox;
  private boolean outboxDone;

  BatchedPurgeRun(PurgeBatches outbox, PurgeBatches inbox) {
    this.outbox = outbox;
    this.inbox = inbox;
  }

  @Override
  public boolean next() {
    if (!outboxDone) {
      outboxDone = !outbox.next();
      return true;
    }
    return inbox.next();
  }

  @Override
  public PurgeResult deleted() {
    return new PurgeResult(outbox.deleted(), inbox.deleted());
  }
}
