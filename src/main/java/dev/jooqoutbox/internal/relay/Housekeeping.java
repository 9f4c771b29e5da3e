package dev.jooqoutbox.internal.relay;

import dev.jooqoutbox.PurgeResult;
import dev.jooqoutbox.internal.repository.PurgeRun;
import dev.jooqoutbox.internal.repository.RelayStore;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;

/**
 * The relay's chores on a timer of their own ({@link RelayTimers}), so that load never starves them
 * and they never hold up delivery: refresh the backlog gauges every {@code gaugeInterval}, and
 * purge once {@code purgeInterval} has passed on the relay's clock since the last purge started.
 *
 * <p>The purge deletes one batch at a time, each a task of its own on the housekeeping timer, so
 * the gauges go on between batches, and it rests after each batch {@value #PURGE_REST} times as
 * long as the batch took: a purge of a million rows at once took a concurrent relay's database time
 * and slowed its delivery to 0.79x (issue 28). Paced, it runs at most 1/{@value #PURGE_SHARE} of
 * the time, which bounds how many rows it can delete an hour (docs/operations.md, "Purge and
 * retention"). All state is confined to the housekeeping timer, whose tasks run one at a time.
 */
final class Housekeeping {

  private static final Logger log = RelayLog.LOG;
  static final int PURGE_BATCH = 1000;

  /** After a batch, the purge rests this many times as long as the batch took. */
  static final int PURGE_REST = 9;

  private static final int PURGE_SHARE = PURGE_REST + 1;

  private final RelayConfig config;
  private final RelayStore store;
  private final RelayMetrics metrics;
  private final RelayTimers timers;
  private RelayTimers.Timer timer;
  private Instant nextPurge;
  private PurgeRun purging;

  Housekeeping(RelayConfig config, RelayStore store, RelayMetrics metrics, RelayTimers timers) {
    this.config = config;
    this.store = store;
    this.metrics = metrics;
    this.timers = timers;
    this.nextPurge = config.clock().instant().plus(config.upkeep().purgeInterval());
  }

  /** Ticks at once, then every gauge interval, on a timer of its own. */
  void start() {
    timer = timers.timer("housekeeping");
    timer.every(Duration.ZERO, config.upkeep().gaugeInterval(), this::tick);
  }

  private void tick() {
    Instant now = config.clock().instant();
    try {
      if (purging == null && !now.isBefore(nextPurge)) {
        nextPurge = now.plus(config.upkeep().purgeInterval());
        purging = store.startPurge(now.minus(config.upkeep().retention()), PURGE_BATCH);
        purgeBatch(); // the first batch before the gauges, which then count without it
      }
      if (metrics != RelayMetrics.NONE) {
        metrics.backlog(store.pendingCount(), store.oldestPendingAge(now));
        metrics.unknownCount(store.unknownCount());
      }
    } catch (RuntimeException e) {
      log.warn(
          "outbox relay housekeeping failed; trying again in {}",
          config.upkeep().gaugeInterval(),
          e);
    }
  }

  private void purgeBatch() {
    long started = timers.nanoTime();
    try {
      if (purging.next()) {
        long took = timers.nanoTime() - started;
        timer.after(Duration.ofNanos(restAfter(took)), this::purgeBatch);
        return;
      }
      logPurged(purging.deleted());
    } catch (RejectedExecutionException e) {
      // the relay is closing
    } catch (RuntimeException e) {
      logPurged(purging.deleted());
      log.warn("outbox purge failed; trying again in {}", config.upkeep().purgeInterval(), e);
    }
    purging = null;
  }

  /** How long the purge rests after a batch that took {@code tookNanos}. */
  static long restAfter(long tookNanos) {
    return PURGE_REST * Math.max(0, tookNanos);
  }

  private void logPurged(PurgeResult purged) {
    if (purged.outboxDeleted() + purged.inboxDeleted() > 0) {
      log.info(
          "outbox purge: {} sent messages and {} inbox rows older than {} deleted",
          purged.outboxDeleted(),
          purged.inboxDeleted(),
          config.upkeep().retention());
    }
  }
}
