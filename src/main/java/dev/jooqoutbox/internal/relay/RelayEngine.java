package dev.jooqoutbox.internal.relay;

import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.Resolution;
import dev.jooqoutbox.internal.eventlog.EventStore;
import dev.jooqoutbox.internal.repository.DatabaseRelayStore;
import dev.jooqoutbox.internal.repository.JooqOutboxRepository;
import dev.jooqoutbox.internal.repository.RelayStore;
import dev.jooqoutbox.internal.repository.WakeupListener;
import dev.jooqoutbox.internal.tracing.Tracing;
import dev.jooqoutbox.internal.wakeup.Wakeups;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;

/**
 * The relay's threads and their lifecycle. A producer claims runs of ready messages as long as the
 * in-flight window has room and never waits for a batch to finish; each aggregate's run is a {@link
 * Lane} on the handler threads; a {@link Completer} writes outcomes in small batches as they
 * arrive; a {@link Heartbeat} extends the leases of what is in flight and a {@link Watchdog} times
 * out handlers past the maximum handling time, each on a timer of its own ({@link RelayTimers}, so
 * that a lease extension waiting on the database never delays a time-out); {@link Housekeeping}
 * refreshes gauges and purges, and the {@link Reconciler} asks about unknown outcomes, on timers of
 * their own too.
 */
public final class RelayEngine {

  private static final Logger log = RelayLog.LOG;

  private final RelayConfig config;
  private final RelayMetrics metrics;
  private final InFlight inFlight;
  private final Completer completer;
  private final Producer producer;
  private final Lanes lanes;
  private final AggregateOrder<Lane> order;
  private final HandlerExecutor threads;
  private final Watchdog watchdog;
  private final Heartbeat heartbeat;
  private final Housekeeping housekeeping;
  private final Reconciler reconciler;
  private final RelayTimers timers;
  private final Wakeup wakeup;
  private final PausedTopics paused;
  private final RelayStore store;
  private final AtomicBoolean started = new AtomicBoolean();
  private final AtomicBoolean timersStarted = new AtomicBoolean();
  private final AtomicBoolean stopping = new AtomicBoolean();
  private final WakeupListener listener;
  private volatile Thread listenerThread;
  private volatile Wakeups.Registration inProcessWakeups;
  private volatile Thread worker;

  public RelayEngine(RelayConfig config) {
    this(config, storeOf(config));
  }

  /**
   * The store of {@code config}'s database: the event log's where writers append to it
   * (PostgreSQL), with the row-state store under it for the messages that need a state of their
   * own; the row-state store alone elsewhere.
   */
  private static RelayStore storeOf(RelayConfig config) {
    JooqOutboxRepository repository = new JooqOutboxRepository(config.dsl(), config.mapper());
    RelayStore rows = new DatabaseRelayStore(repository);
    if (!repository.appendsEvents()) {
      return rows;
    }
    return new EventStore(
        rows,
        config.dsl(),
        config.mapper(),
        config.claiming().lease(),
        config.claiming().maxRun(),
        config.clock());
  }

  /** An engine on {@code store} instead of the database of {@code config} (tests: a model). */
  RelayEngine(RelayConfig config, RelayStore store) {
    this(config, store, new HandlerThreads(config.handling().concurrency()), Set.of(), Set.of());
  }

  /**
   * An engine on {@code store} whose lanes run on {@code threads}: the seeded simulation of the
   * engine runs them one task at a time, and drives the producer and the completer by {@link
   * #produceOnce} and {@link #completeOnce} instead of {@link #start}. The faults are test-only
   * switches (none in a relay), for the simulation to show that it finds them.
   */
  RelayEngine(
      RelayConfig config,
      RelayStore store,
      HandlerExecutor threads,
      Set<AggregateOrder.Fault> orderFaults,
      Set<Heartbeat.Fault> heartbeatFaults) {
    this.config = config;
    this.store = store;
    this.metrics =
        config.meterRegistry() == null
            ? RelayMetrics.NONE
            : MicrometerLoader.metrics(config.meterRegistry());
    this.inFlight = new InFlight(config.claiming().maxInFlight());
    metrics.inFlight(inFlight::size);
    this.timers = config.timers() != null ? config.timers() : RelayTimers.onThreads();
    this.wakeup = new Wakeup(timers);
    this.completer = new Completer(config, store, metrics, inFlight, timers, this::settled);
    this.paused = new PausedTopics(store, wakeup::signal);
    metrics.pausedTopics(
        () -> config.handlers().size() - paused.claimable(config.handlers().keySet()).size());
    this.producer = new Producer(config, store, inFlight, metrics, paused);
    this.threads = threads;
    this.watchdog = new Watchdog(config.handling().maxHandlingTime(), timers);
    this.lanes =
        new Lanes(
            config,
            threads,
            watchdog,
            completer,
            metrics,
            Tracing.of(config.openTelemetry()),
            stopping::get,
            new AggregateOrder<>(config.claiming().maxRun(), orderFaults));
    this.order = lanes.order;
    this.heartbeat = new Heartbeat(config, store, inFlight, heartbeatFaults);
    this.housekeeping = new Housekeeping(config, store, metrics, timers);
    this.reconciler = new Reconciler(config, store, metrics, this::resolved);
    this.listener =
        config.claiming().listen()
            ? store.wakeupListener(wakeup::signal, Duration.ofSeconds(1))
            : null;
  }

  /**
   * A reconciler of this relay resolved {@code message}: the order learns that a row it took for
   * pending (where a claim's walk stops) is sent or dead, unless retried, and the producer wakes.
   */
  private void resolved(OutboxMessage message, Resolution resolution) {
    order.resolved(message.aggregate(), message.seq(), resolution == Resolution.RETRY);
    wakeup.signal();
  }

  public void start() {
    if (stopping.get() || !started.compareAndSet(false, true)) {
      throw new IllegalStateException("an OutboxRelay starts once and cannot restart after close");
    }
    startTimers();
    store.start();
    housekeeping.start();
    if (reconciler.hasWork()) {
      reconciler.start(timers.timer("reconcile"));
    }
    completer.start();
    // Writers of this JVM on the same database wake the producer right after their commit.
    inProcessWakeups = Wakeups.register(config.dsl(), wakeup::signal);
    Thread w = RelayThreads.daemon("outbox-relay-").newThread(this::produce);
    worker = w;
    w.start();
    if (listener != null) {
      Thread l = RelayThreads.daemon("outbox-listen-").newThread(listener);
      listenerThread = l;
      l.start();
    }
  }

  /**
   * Starts the heartbeat, the watchdog and the paused topics' reads, once (the simulation: only).
   */
  void startTimers() {
    if (timersStarted.compareAndSet(false, true)) {
      heartbeat.start(timers);
      watchdog.start();
      paused.start(timers, config.claiming().pollInterval());
    }
  }

  /**
   * Claims and delivers on the calling thread's behalf until {@code max} messages were handled or
   * nothing is ready; lanes run on the handler threads, outcomes are written on the calling thread
   * before the next claim. Database errors propagate.
   */
  public int drainOnce(int max) {
    if (started.get()) {
      throw new IllegalStateException("drainOnce is for a relay that was not started");
    }
    startTimers();
    int handled = 0;
    while (handled < max && !stopping.get()) {
      order.beforeClaim();
      int asked = Math.min(config.claiming().batchSize(), max - handled);
      Producer.Claimed claimed = producer.claim(asked);
      order.claimed(claimed.token(), asked, claimed.messages());
      if (claimed.messages().isEmpty()) {
        break;
      }
      CountDownLatch ended =
          new CountDownLatch(
              (int) claimed.messages().stream().map(m -> m.aggregate()).distinct().count());
      lanes.cut(claimed.token(), claimed.messages(), ended::countDown).forEach(lanes::admit);
      RelayThreads.awaitUninterruptibly(ended);
      handled += completer.flushNow();
    }
    store.flush();
    return handled;
  }

  /** Asks the reconcilers about what is due now, on the calling thread. */
  public int reconcileOnce() {
    if (started.get()) {
      throw new IllegalStateException("reconcileOnce is for a relay that was not started");
    }
    return reconciler.reconcileOnce();
  }

  private static void noLaneEndAction() {}

  public void close() {
    if (!stopping.compareAndSet(false, true)) {
      return;
    }
    long deadline = System.nanoTime() + config.handling().shutdownTimeout().toNanos();
    wakeup.signal();
    if (inProcessWakeups != null) {
      inProcessWakeups.close();
    }
    if (listener != null) {
      listener.stop();
    }
    try {
      join(worker, deadline);
      // Lanes stop between messages and give the rest back; running handlers finish.
      inFlight.awaitEmpty(deadline);
      threads.shutdown(remainingMillis(deadline));
      completer.close(Duration.ofMillis(remainingMillis(deadline) + 1000));
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
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      try {
        store.close();
      } catch (RuntimeException e) {
        log.warn(
            "outbox relay could not give back what it holds; it is taken over after its lease", e);
      }
      timers.close();
      metrics.close();
    }
  }

  private void join(Thread thread, long deadline) throws InterruptedException {
    if (thread == null) {
      return;
    }
    thread.join(Math.max(1, remainingMillis(deadline)));
    if (thread.isAlive()) {
      log.warn(
          "outbox relay did not stop within {}; interrupting it",
          config.handling().shutdownTimeout());
      thread.interrupt();
      thread.join(1000);
    }
  }

  private static long remainingMillis(long deadline) {
    return Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
  }

  private void produce() {
    Duration errorDelay = Duration.ZERO;
    while (!stopping.get()) {
      try {
        boolean claimAgain = produceOnce();
        errorDelay = Duration.ZERO;
        if (claimAgain) {
          continue; // claim again at once while the window has room (no barrier)
        }
        // Nothing more ready, or the window is full: a commit, a settle or the poll wakes us.
        wakeup.await(config.claiming().pollInterval());
      } catch (InterruptedException e) {
        if (!stopping.get()) {
          log.warn("outbox relay worker interrupted; stopping");
        }
        return;
      } catch (RuntimeException e) {
        errorDelay = RelayThreads.nextErrorDelay(errorDelay, config.claiming().pollInterval());
        log.warn("outbox relay: database error, retrying in {} ms", errorDelay.toMillis(), e);
        try {
          wakeup.await(errorDelay);
        } catch (InterruptedException interrupted) {
          return;
        }
      }
    }
  }

  /**
   * One turn of the producer: a claim of up to a batch when the window has room, its runs started,
   * left waiting or given back as the order decides; else the order learns that the window is full.
   * Returns whether to claim again at once (else it waits for a wake-up or the poll).
   */
  boolean produceOnce() {
    int room = inFlight.room();
    if (room <= 0) {
      order.windowFull(); // any settle makes room
      return false;
    }
    int asked = Math.min(config.claiming().batchSize(), room);
    order.beforeClaim();
    Producer.Claimed claimed = producer.claim(asked);
    boolean claimAgain = order.claimed(claimed.token(), asked, claimed.messages());
    lanes
        .cut(claimed.token(), claimed.messages(), RelayEngine::noLaneEndAction)
        .forEach(lanes::admit);
    return claimAgain;
  }

  /**
   * Writes the outcomes reported so far on the calling thread, as the completer's thread does (the
   * simulation's completer step); returns how many it settled other than by giving them back.
   */
  int completeOnce() {
    return completer.flushNow();
  }

  /** Whether outcomes wait for the completer. */
  boolean hasOutcomes() {
    return completer.hasOutcomes();
  }

  /** Takes a wake-up signalled since the last, without waiting: whether one was. */
  boolean takeWakeup() {
    return wakeup.take();
  }

  /** The completer wrote outcomes: wake the producer when that can give its next claim work. */
  private void settled(String token, List<OutboxMessage> messages, boolean pending) {
    if (order.settled(token, messages, pending)) {
      wakeup.signal();
    }
  }
}
