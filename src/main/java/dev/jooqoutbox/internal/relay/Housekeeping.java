package dev.jooqoutbox.internal.relay;

import dev.jooqoutbox.PurgeResult;
import dev.jooqoutbox.internal.repository.JooqOutboxRepository;
import java.time.Instant;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;

/**
 * The relay's chores on a thread of their own, so that load never starves them and they never hold
 * up delivery: refresh the backlog gauges every {@code gaugeInterval}, and purge (in bounded
 * batches) once {@code purgeInterval} has passed on the relay's clock since the last purge.
 */
final class Housekeeping {

  private static final Logger log = RelayLog.LOG;
  static final int PURGE_BATCH = 1000;

  private final RelayConfig config;
  private final JooqOutboxRepository repository;
  private final RelayMetrics metrics;
  private Instant nextPurge;

  Housekeeping(RelayConfig config, JooqOutboxRepository repository, RelayMetrics metrics) {
    this.config = config;
    this.repository = repository;
    this.metrics = metrics;
    this.nextPurge = config.clock().instant().plus(config.purgeInterval());
  }

  void start(ScheduledExecutorService timer) {
    long period = config.gaugeInterval().toNanos();
    timer.scheduleWithFixedDelay(this::tick, 0, period, TimeUnit.NANOSECONDS);
  }

  private void tick() {
    Instant now = config.clock().instant();
    try {
      if (metrics != RelayMetrics.NONE) {
        metrics.backlog(repository.pendingCount(), repository.oldestPendingAge(now));
        metrics.unknownCount(repository.outcomes().unknownCount());
      }
      if (!now.isBefore(nextPurge)) {
        nextPurge = now.plus(config.purgeInterval());
        purge(now);
      }
    } catch (RuntimeException e) {
      log.warn("outbox relay housekeeping failed; trying again in {}", config.gaugeInterval(), e);
    }
  }

  private void purge(Instant now) {
    PurgeResult purged = repository.purge(now.minus(config.retention()), PURGE_BATCH);
    if (purged.outboxDeleted() + purged.inboxDeleted() > 0) {
      log.info(
          "outbox purge: {} sent messages and {} inbox rows older than {} deleted",
          purged.outboxDeleted(),
          purged.inboxDeleted(),
          config.retention());
    }
  }
}
