package dev.jooqoutbox.internal.relay;

import dev.jooqoutbox.internal.micrometer.MicrometerRelayMetrics;
import dev.jooqoutbox.internal.repository.JooqOutboxRepository;
import dev.jooqoutbox.internal.repository.WakeupListener;
import dev.jooqoutbox.internal.wakeup.Wakeups;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;

/**
 * The threads behind an {@code OutboxRelay}: a worker that delivers batch after batch and polls
 * when idle, the optional LISTEN thread that cuts the poll short, and the handler threads. Owns
 * their start and their bounded shutdown.
 */
public final class RelayEngine {

  private static final Logger log = RelayLog.LOG;
  private static final Duration MAX_ERROR_DELAY = Duration.ofSeconds(30);
  private static final Duration BACKLOG_REFRESH = Duration.ofSeconds(5);

  private final RelayConfig config;
  private final JooqOutboxRepository repository;
  private final RelayMetrics metrics;
  private final ExecutorService handlerThreads;
  private final BatchDelivery delivery;
  private final Wakeup wakeup = new Wakeup();
  private final AtomicBoolean started = new AtomicBoolean();
  private final AtomicBoolean stopping = new AtomicBoolean();
  private final WakeupListener listener;
  private volatile Thread listenerThread;
  private volatile Wakeups.Registration inProcessWakeups;
  private volatile Thread worker;
  private Instant nextPurge;
  private Instant nextBacklogRefresh = Instant.MIN;

  public RelayEngine(RelayConfig config) {
    this.config = config;
    this.repository = new JooqOutboxRepository(config.dsl(), config.mapper());
    this.metrics =
        config.meterRegistry() == null ? RelayMetrics.NONE : micrometer(config.meterRegistry());
    // Unbounded thread count on purpose: the slots bound concurrent handlers; a thread beyond
    // them exists only while a handler that overran its lease refuses to stop.
    this.handlerThreads = Executors.newCachedThreadPool(daemonThreads("outbox-handler-"));
    this.delivery = new BatchDelivery(config, repository, metrics, handlerThreads, stopping::get);
    this.listener =
        config.listen() ? repository.wakeupListener(wakeup::signal, Duration.ofSeconds(1)) : null;
    this.nextPurge = config.clock().instant().plus(config.purgeInterval());
  }

  /**
   * Only this method names Micrometer's classes, and the JVM resolves them when it first runs:
   * without a registry nothing of Micrometer (an optional dependency) is loaded.
   */
  private static RelayMetrics micrometer(Object registry) {
    return new MicrometerRelayMetrics((MeterRegistry) registry);
  }

  public void start() {
    if (stopping.get() || !started.compareAndSet(false, true)) {
      throw new IllegalStateException("an OutboxRelay starts once and cannot restart after close");
    }
    inProcessWakeups = Wakeups.register(config.dsl(), wakeup::signal);
    Thread w = daemonThreads("outbox-relay-").newThread(this::runWorker);
    worker = w;
    w.start();
    if (listener != null) {
      Thread l = daemonThreads("outbox-listen-").newThread(listener);
      listenerThread = l;
      l.start();
    }
  }

  public int drainOnce(int max) {
    int handled = 0;
    while (handled < max && !stopping.get()) {
      int want = Math.min(config.batchSize(), max - handled);
      BatchDelivery.Result result = delivery.deliver(want);
      handled += result.handled();
      // Not "less than asked": a batch holds one message per aggregate, and settling it may have
      // made the next message of each aggregate ready. Only an empty claim means nothing is.
      if (result.claimed() == 0) {
        break;
      }
    }
    return handled;
  }

  public void close() {
    if (!stopping.compareAndSet(false, true)) {
      return;
    }
    wakeup.signal();
    if (inProcessWakeups != null) {
      inProcessWakeups.close();
    }
    if (listener != null) {
      listener.stop();
    }
    try {
      Thread w = worker;
      if (w != null) {
        w.join(config.shutdownTimeout().toMillis());
        if (w.isAlive()) {
          log.warn(
              "outbox relay did not stop within {}; interrupting it", config.shutdownTimeout());
          w.interrupt();
          w.join(1000);
        }
      }
      Thread l = listenerThread;
      if (l != null) {
        // It notices stop() within one notification wait; joining it means the application may
        // close its pool right after close() without the LISTEN connection failing under it.
        l.join(2000);
        if (l.isAlive()) {
          l.interrupt();
          l.join(1000);
        }
      }
      handlerThreads.shutdown();
      if (!handlerThreads.awaitTermination(1, TimeUnit.SECONDS)) {
        handlerThreads.shutdownNow();
      }
    } catch (InterruptedException e) {
      handlerThreads.shutdownNow();
      Thread.currentThread().interrupt();
    } finally {
      metrics.close();
    }
  }

  private void runWorker() {
    Duration errorDelay = Duration.ZERO;
    while (!stopping.get()) {
      try {
        BatchDelivery.Result result = delivery.deliver(config.batchSize());
        errorDelay = Duration.ZERO;
        if (result.claimed() > 0) {
          // Claim again at once: settling this batch may have made the next message of each of
          // its aggregates ready (a batch holds one per aggregate, so it is rarely full).
          continue;
        }
        maintain();
        wakeup.await(config.pollInterval());
      } catch (InterruptedException e) {
        if (!stopping.get()) {
          log.warn("outbox relay worker interrupted; stopping");
        }
        return;
      } catch (RuntimeException e) {
        errorDelay = nextErrorDelay(errorDelay);
        log.warn("outbox relay: database error, retrying in {} ms", errorDelay.toMillis(), e);
        try {
          wakeup.await(errorDelay);
        } catch (InterruptedException interrupted) {
          return;
        }
      }
    }
  }

  private Duration nextErrorDelay(Duration previous) {
    Duration next = previous.isZero() ? config.pollInterval() : previous.multipliedBy(2);
    return next.compareTo(MAX_ERROR_DELAY) > 0 ? MAX_ERROR_DELAY : next;
  }

  private void maintain() {
    Instant now = config.clock().instant();
    if (!now.isBefore(nextPurge)) {
      nextPurge = now.plus(config.purgeInterval());
      var purged = repository.purge(now.minus(config.retention()), 1000);
      if (purged.outboxDeleted() + purged.inboxDeleted() > 0) {
        log.info(
            "outbox purge: {} sent messages and {} inbox rows older than {} deleted",
            purged.outboxDeleted(),
            purged.inboxDeleted(),
            config.retention());
      }
    }
    if (metrics != RelayMetrics.NONE && !now.isBefore(nextBacklogRefresh)) {
      nextBacklogRefresh = now.plus(BACKLOG_REFRESH);
      metrics.backlog(repository.pendingCount(), repository.oldestPendingAge(now));
    }
  }

  static ThreadFactory daemonThreads(String prefix) {
    AtomicInteger counter = new AtomicInteger();
    return runnable -> {
      Thread t = new Thread(runnable, prefix + counter.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }
}
