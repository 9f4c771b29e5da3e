package dev.jooqoutbox.internal.repository;

import dev.jooqoutbox.PurgeResult;

/**
 * One purge, a batch per {@link #next} call: sent outbox messages first, then inbox rows, each
 * batch its own statements and transactions. A caller that runs other work between batches, or
 * waits, paces the purge (the relay's housekeeping does, so that a purge costs delivery little).
 * Not thread-safe.
 */
public final class PurgeRun {

  private final PurgeBatches outbox;
  private final PurgeBatches inbox;
  private boolean outboxDone;

  PurgeRun(PurgeBatches outbox, PurgeBatches inbox) {
    this.outbox = outbox;
    this.inbox = inbox;
  }

  /** Deletes the next batch; false once the purge is done. */
  public boolean next() {
    if (!outboxDone) {
      outboxDone = !outbox.next();
      return true;
    }
    return inbox.next();
  }

  /** What the batches so far deleted. */
  public PurgeResult deleted() {
    return new PurgeResult(outbox.deleted(), inbox.deleted());
  }
}
