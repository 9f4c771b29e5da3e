package dev.jooqoutbox.internal.repository;

import dev.jooqoutbox.PurgeResult;

/**
 * One purge, a batch per {@link #next} call. A caller that runs other work between batches, or
 * waits, paces the purge (the relay's housekeeping does, so that a purge costs delivery little).
 * Not thread-safe.
 */
public interface PurgeRun {

  /** Deletes the next batch; false once the purge is done. */
  boolean next();

  /** What the batches so far deleted. */
  PurgeResult deleted();
}
