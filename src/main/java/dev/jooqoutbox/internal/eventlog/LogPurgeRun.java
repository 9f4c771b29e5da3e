package dev.jooqoutbox.internal.eventlog;

import dev.jooqoutbox.PurgeResult;
import dev.jooqoutbox.internal.repository.PurgeRun;

/**
 * A purge of an outbox on the event log: outbox_message's rows and the inbox first, a batch a call,
 * then the log's partitions ({@link EventRetention}). Not thread-safe.
 */
record LogPurgeRun(PurgeRun rows, PurgeRun log, boolean[] rowsDone) implements PurgeRun {

  LogPurgeRun(PurgeRun rows, PurgeRun log) {
    this(rows, log, new boolean[1]);
  }

  @Override
  public boolean next() {
    if (!rowsDone[0]) {
      rowsDone[0] = !rows.next();
      return true;
    }
    return log.next();
  }

  @Override
  public PurgeResult deleted() {
    PurgeResult r = rows.deleted();
    return new PurgeResult(r.outboxDeleted() + log.deleted().outboxDeleted(), r.inboxDeleted());
  }
}
