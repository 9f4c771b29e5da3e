package dev.jooqoutbox.relay;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.repository.JooqOutboxRepository;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers outbox messages to the handlers of their topics: at least once, in {@code seq} order per
 * aggregate, across any number of relays on one database.
 *
 * <p>Each cycle claims a batch of ready messages (only of the topics this relay has handlers for),
 * runs the handlers on up to {@code handlerConcurrency} threads, and settles: successes are marked
 * sent in one statement at the end of the batch, failures are retried with backoff or dead-lettered
 * after {@code maxAttempts}. A claimed batch never holds two messages of one aggregate (the claim
 * takes only the oldest pending message of each), so the handlers of a batch are independent and
 * may run in parallel.
 *
 * <p>What can repeat: a crash (or a lost database connection) after a handler returned and before
 * the batch was marked sent delivers that batch's handled messages again, at most one batch per
 * crash. Use {@link dev.jooqoutbox.Inbox} for exactly-once effects.
 *
 * <p>Every database step is a {@link JooqOutboxRepository} call. Database errors in the loop are
 * logged and retried with backoff; the worker thread does not die from them. Memory is bounded by
 * one batch: nothing is queued in memory beyond what was claimed.
 */
public final class OutboxRelay implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(OutboxRelay.class);
  private static final Pattern TOPIC = Pattern.compile("[A-Za-z0-9._:-]{1,255}");
  private static final int MAX_ERROR_LENGTH = 2000;
  private static final Duration MAX_ERROR_DELAY = Duration.ofSeconds(30);
  private static final Duration BACKLOG_REFRESH = Duration.ofSeconds(5);
  private static final long SLOT_WAIT_SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

  static final ThreadLocal<OutboxMessage> CURRENT = new ThreadLocal<>();

  private final JooqOutboxRepository repository;
  private final Map<String, OutboxHandler> handlers;
  private final Set<String> topics;
  private final int batchSize;
  private final Duration pollInterval;
  private final Duration lease;
  private final int maxAttempts;
  private final Backoff backoff;
  private final Duration retention;
  private final Duration purgeInterval;
  private final Duration shutdownTimeout;
  private final Clock clock;
  private final Supplier<String> claimTokens;
  private final RelayMetrics metrics;
  private final Semaphore slots;
  private final ExecutorService handlerThreads;
  private final Wakeup wakeup = new Wakeup();
  private final AtomicBoolean started = new AtomicBoolean();
  private final AtomicBoolean stopping = new AtomicBoolean();
  private final PostgresListener listener;
  private volatile Thread listenerThread;
  private volatile Thread worker;
  private Instant nextPurge;
  private Instant nextBacklogRefresh = Instant.MIN;

  private OutboxRelay(Builder b) {
    this.repository = new JooqOutboxRepository(b.dsl, b.mapper);
    this.handlers = Map.copyOf(b.handlers);
    this.topics = Set.copyOf(b.handlers.keySet());
    this.batchSize = b.batchSize;
    this.pollInterval = b.pollInterval;
    this.lease = b.lease;
    this.maxAttempts = b.maxAttempts;
    this.backoff = new Backoff(b.backoffInitial, b.backoffMax);
    this.retention = b.retention;
    this.purgeInterval = b.purgeInterval;
    this.shutdownTimeout = b.shutdownTimeout;
    this.clock = b.clock;
    this.claimTokens = b.claimTokens;
    this.metrics = b.meterRegistry == null ? RelayMetrics.NONE : micrometer(b.meterRegistry);
    this.slots = new Semaphore(b.handlerConcurrency);
    // Unbounded thread count on purpose: the slots bound concurrent handlers; a thread beyond
    // them exists only while a handler that overran its lease refuses to stop.
    this.handlerThreads = Executors.newCachedThreadPool(daemonThreads("outbox-handler-"));
    this.listener =
        b.listen && b.dsl.dialect().family() == SQLDialect.POSTGRES
            ? new PostgresListener(
                b.dsl.configuration().connectionProvider(), wakeup, Duration.ofSeconds(1))
            : null;
    this.nextPurge = clock.instant().plus(purgeInterval);
  }

  private static RelayMetrics micrometer(Object registry) {
    return new MicrometerRelayMetrics((MeterRegistry) registry);
  }

  /** A relay on the connections of {@code dsl}; each claim and settle is its own transaction. */
  public static Builder builder(DSLContext dsl) {
    return new Builder(dsl);
  }

  /** A relay on {@code dataSource}, speaking {@code dialect}. */
  public static Builder builder(DataSource dataSource, SQLDialect dialect) {
    return new Builder(DSL.using(dataSource, dialect));
  }

  /**
   * The message whose handler is running on this thread, for code the handler calls (for example to
   * record its id with the inbox) without passing it around. Empty outside a handler.
   */
  public static Optional<OutboxMessage> currentMessage() {
    return Optional.ofNullable(CURRENT.get());
  }

  /** The topics this relay claims: those with a handler. */
  public Set<String> topics() {
    return topics;
  }

  /**
   * Starts the worker thread (and, on PostgreSQL, the LISTEN thread). Call once.
   *
   * @throws IllegalStateException when started before or closed
   */
  public void start() {
    if (stopping.get() || !started.compareAndSet(false, true)) {
      throw new IllegalStateException("an OutboxRelay starts once and cannot restart after close");
    }
    Thread w = daemonThreads("outbox-relay-").newThread(this::runWorker);
    worker = w;
    w.start();
    if (listener != null) {
      Thread l = daemonThreads("outbox-listen-").newThread(listener);
      listenerThread = l;
      l.start();
    }
  }

  /**
   * Delivers what is ready now, up to {@code max} messages, on the calling thread, and returns how
   * many were handled (sent, retried or dead-lettered). For tests and for applications that
   * schedule the relay themselves; database errors propagate.
   */
  public int drainOnce(int max) {
    int handled = 0;
    while (handled < max && !stopping.get()) {
      int want = Math.min(batchSize, max - handled);
      BatchResult result = deliverBatch(want);
      handled += result.handled();
      // Not "less than asked": a batch holds one message per aggregate, and settling it may have
      // made the next message of each aggregate ready. Only an empty claim means nothing is.
      if (result.claimed() == 0) {
        break;
      }
    }
    return handled;
  }

  /**
   * Stops between messages: handlers already running finish (within their lease), the unhandled
   * rest of the claimed batch is released without using an attempt, and the worker ends. Waits at
   * most the shutdown timeout. Idempotent.
   */
  @Override
  public void close() {
    if (!stopping.compareAndSet(false, true)) {
      return;
    }
    wakeup.signal();
    if (listener != null) {
      listener.stop();
    }
    Thread w = worker;
    try {
      if (w != null) {
        w.join(shutdownTimeout.toMillis());
        if (w.isAlive()) {
          log.warn("outbox relay did not stop within {}; interrupting it", shutdownTimeout);
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
    }
  }

  // ---------------------------------------------------------------- the loop

  private void runWorker() {
    Duration errorDelay = Duration.ZERO;
    while (!stopping.get()) {
      try {
        BatchResult result = deliverBatch(batchSize);
        errorDelay = Duration.ZERO;
        if (result.claimed() > 0) {
          // Claim again at once: settling this batch may have made the next message of each of
          // its aggregates ready (a batch holds one per aggregate, so it is rarely full).
          continue;
        }
        maintain();
        wakeup.await(pollInterval);
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
    Duration next = previous.isZero() ? pollInterval : previous.multipliedBy(2);
    return next.compareTo(MAX_ERROR_DELAY) > 0 ? MAX_ERROR_DELAY : next;
  }

  private void maintain() {
    Instant now = clock.instant();
    if (!now.isBefore(nextPurge)) {
      nextPurge = now.plus(purgeInterval);
      var purged = repository.purge(now.minus(retention), 1000);
      if (purged.outboxDeleted() + purged.inboxDeleted() > 0) {
        log.info(
            "outbox purge: {} sent messages and {} inbox rows older than {} deleted",
            purged.outboxDeleted(),
            purged.inboxDeleted(),
            retention);
      }
    }
    if (metrics != RelayMetrics.NONE && !now.isBefore(nextBacklogRefresh)) {
      nextBacklogRefresh = now.plus(BACKLOG_REFRESH);
      metrics.backlog(repository.pendingCount(), repository.oldestPendingAge(now));
    }
  }

  // ---------------------------------------------------------------- one batch

  private record BatchResult(int claimed, int handled) {}

  private record InFlight(OutboxMessage message, HandlerTask task, Future<Throwable> result) {}

  private BatchResult deliverBatch(int limit) {
    String token = claimTokens.get();
    Instant claimedAt = clock.instant();
    long claimStart = System.nanoTime();
    List<OutboxMessage> batch = repository.claim(topics, limit, lease, token, claimedAt);
    Duration claimTook = Duration.ofNanos(System.nanoTime() - claimStart);
    metrics.claimDuration(claimTook);
    if (claimTook.compareTo(lease.dividedBy(4)) > 0 && !batch.isEmpty()) {
      // No handler starts after half the lease; a claim this slow leaves little of it, and one
      // slower than half the lease releases its whole batch every cycle without progress.
      log.warn(
          "outbox claim took {} ms of a {} ms lease; the database is struggling or the lease is too"
              + " short",
          claimTook.toMillis(),
          lease.toMillis());
    }
    if (batch.isEmpty()) {
      return new BatchResult(0, 0);
    }
    metrics.batchSize(batch.size());
    Instant deadline = claimedAt.plus(lease);
    // Start nothing in the second half of the lease: leave time to settle before it runs out.
    Instant lastStart = claimedAt.plus(lease.dividedBy(2));

    List<Long> unhandled = new ArrayList<>();
    List<InFlight> inFlight = new ArrayList<>(batch.size());
    int settledWithoutRunning = 0;
    for (OutboxMessage message : batch) {
      if (stopping.get() || !clock.instant().isBefore(lastStart)) {
        unhandled.add(message.seq());
      } else if (message.attempt() > maxAttempts) {
        deadLetterExhausted(token, message);
        settledWithoutRunning++;
      } else if (!acquireSlot(lastStart)) {
        unhandled.add(message.seq());
      } else {
        HandlerTask task = new HandlerTask(handlers.get(message.topic()), message, slots, clock);
        inFlight.add(new InFlight(message, task, handlerThreads.submit(task)));
      }
    }

    List<Long> sent = new ArrayList<>(inFlight.size());
    List<String> sentTopics = new ArrayList<>(inFlight.size());
    for (InFlight f : inFlight) {
      Throwable failure = awaitResult(f, deadline);
      metrics.handlerDuration(f.message().topic(), f.task().duration());
      if (failure == Interrupted.INSTANCE) {
        unhandled.add(f.message().seq());
      } else if (failure == null) {
        sent.add(f.message().seq());
        sentTopics.add(f.message().topic());
      } else {
        fail(token, f.message(), failure);
      }
    }
    if (!sent.isEmpty()) {
      int marked = repository.markSent(token, sent, clock.instant());
      if (marked < sent.size()) {
        log.warn(
            "outbox relay lost {} of {} messages to another relay before marking them sent (lease"
                + " {} too short?); they will be delivered again",
            sent.size() - marked,
            sent.size(),
            lease);
      }
      sentTopics.forEach(metrics::sent);
    }
    if (!unhandled.isEmpty()) {
      repository.release(token, unhandled);
    }
    return new BatchResult(batch.size(), batch.size() - unhandled.size());
  }

  /**
   * Waits for a handler slot until {@code lastStart}. Gives up as soon as {@link #close()} is
   * called, and never hands out a slot after it: close stops between messages, so the message
   * waiting here goes back with the unhandled rest instead of starting once a slot frees up.
   */
  private boolean acquireSlot(Instant lastStart) {
    long waitMillis = Math.max(0, Duration.between(clock.instant(), lastStart).toMillis());
    long waitNanos = TimeUnit.MILLISECONDS.toNanos(waitMillis); // saturates, never overflows
    long waitStart = System.nanoTime();
    try {
      while (!stopping.get()) {
        long remaining = waitNanos - (System.nanoTime() - waitStart);
        // In slices: a semaphore wait cannot be woken by close().
        if (slots.tryAcquire(
            Math.max(0, Math.min(remaining, SLOT_WAIT_SLICE_NANOS)), TimeUnit.NANOSECONDS)) {
          if (!stopping.get()) {
            return true;
          }
          slots.release();
          return false;
        }
        if (remaining <= SLOT_WAIT_SLICE_NANOS) {
          return false;
        }
      }
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Marker for a wait cut short by shutdown: the message goes back unhandled. */
  private static final class Interrupted extends RuntimeException {
    private static final long serialVersionUID = 1L;
    static final Interrupted INSTANCE = new Interrupted();

    private Interrupted() {
      super(null, null, false, false);
    }
  }

  private Throwable awaitResult(InFlight f, Instant deadline) {
    long waitNanos = Math.max(0, Duration.between(clock.instant(), deadline).toNanos());
    try {
      Throwable failure = f.result().get(waitNanos, TimeUnit.NANOSECONDS);
      if (failure == null && f.task().finishedAt().isAfter(deadline)) {
        return new LeaseOverrunException(lease);
      }
      return failure;
    } catch (TimeoutException e) {
      f.result().cancel(true);
      f.task().abandon();
      return new LeaseOverrunException(lease);
    } catch (InterruptedException e) {
      f.result().cancel(true);
      f.task().abandon();
      Thread.currentThread().interrupt();
      return Interrupted.INSTANCE;
    } catch (ExecutionException e) {
      return e.getCause(); // HandlerTask returns failures; this is a bug in the relay itself
    }
  }

  /** Why a handler that ran past the lease counts as failed. */
  static final class LeaseOverrunException extends Exception {
    private static final long serialVersionUID = 1L;

    LeaseOverrunException(Duration lease) {
      super("handler ran past the lease of " + lease.toMillis() + " ms");
    }
  }

  private void fail(String token, OutboxMessage message, Throwable failure) {
    String error = describe(failure);
    Instant now = clock.instant();
    if (message.attempt() >= maxAttempts) {
      boolean recorded = repository.deadLetter(token, message.seq(), error, now);
      metrics.deadLettered(message.topic());
      log.error(
          "outbox message {} (topic {}) failed its last attempt {} and is dead-lettered{}: {}",
          message.id(),
          message.topic(),
          message.attempt(),
          recorded ? "" : " (another relay owns it now)",
          error);
    } else {
      Duration wait = backoff.after(message.attempt());
      boolean recorded = repository.retryLater(token, message.seq(), error, now.plus(wait));
      metrics.failed(message.topic());
      log.warn(
          "outbox message {} (topic {}) failed attempt {}; retry in {} ms{}: {}",
          message.id(),
          message.topic(),
          message.attempt(),
          wait.toMillis(),
          recorded ? "" : " (another relay owns it now)",
          error);
    }
    log.debug("outbox handler failure of message {}", message.id(), failure);
  }

  private void deadLetterExhausted(String token, OutboxMessage message) {
    String error =
        "attempts used up by crashes or expired leases (claimed "
            + message.attempt()
            + " times, max "
            + maxAttempts
            + ")";
    repository.deadLetterExhausted(token, message.seq(), maxAttempts, error, clock.instant());
    metrics.deadLettered(message.topic());
    log.error(
        "outbox message {} (topic {}) dead-lettered without running: {}",
        message.id(),
        message.topic(),
        error);
  }

  /**
   * The stored error: exception types and messages along the cause chain, bounded. The relay adds
   * no payload to it; a handler that puts payload data into its own exception messages owns that.
   */
  static String describe(Throwable failure) {
    StringBuilder text = new StringBuilder();
    Throwable t = failure;
    for (int depth = 0; t != null && depth < 4; depth++, t = t.getCause()) {
      if (depth > 0) {
        text.append("; caused by ");
      }
      text.append(t.getClass().getName());
      if (t.getMessage() != null) {
        text.append(": ").append(t.getMessage());
      }
    }
    return text.length() <= MAX_ERROR_LENGTH
        ? text.toString()
        : text.substring(0, MAX_ERROR_LENGTH - 1) + "…";
  }

  private static ThreadFactory daemonThreads(String prefix) {
    AtomicInteger counter = new AtomicInteger();
    return runnable -> {
      Thread t = new Thread(runnable, prefix + counter.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  // ---------------------------------------------------------------- settings

  /**
   * Settings of an {@link OutboxRelay}. Every setting has a default except the handlers; {@link
   * #build()} checks them all and names the first invalid one.
   */
  public static final class Builder {
    private final DSLContext dsl;
    private final Map<String, OutboxHandler> handlers = new LinkedHashMap<>();
    private int batchSize = 100;
    private Duration pollInterval = Duration.ofMillis(500);
    private Duration lease = Duration.ofSeconds(30);
    private int maxAttempts = 10;
    private Duration backoffInitial = Duration.ofSeconds(1);
    private Duration backoffMax = Duration.ofMinutes(5);
    private Duration retention = Duration.ofDays(7);
    private Duration purgeInterval = Duration.ofHours(1);
    private int handlerConcurrency = 1;
    private Duration shutdownTimeout = Duration.ofSeconds(30);
    private Clock clock = Clock.systemUTC();
    private Supplier<String> claimTokens = () -> UUID.randomUUID().toString();
    private ObjectMapper mapper = new ObjectMapper();
    private Object meterRegistry;
    private boolean listen = true;

    private Builder(DSLContext dsl) {
      this.dsl = Objects.requireNonNull(dsl, "dsl");
    }

    /** Registers the handler of {@code topic}. Only topics with a handler are claimed. */
    public Builder handler(String topic, OutboxHandler handler) {
      if (topic == null || !TOPIC.matcher(topic).matches()) {
        throw new IllegalArgumentException(
            "handler topic must be 1-255 characters of A-Z a-z 0-9 . _ : -, was " + topic);
      }
      Objects.requireNonNull(handler, "handler");
      if (handlers.putIfAbsent(topic, handler) != null) {
        throw new IllegalArgumentException("a handler for topic " + topic + " is already set");
      }
      return this;
    }

    /** Messages claimed per cycle (1-10000). Default 100. */
    public Builder batchSize(int batchSize) {
      this.batchSize = batchSize;
      return this;
    }

    /** Sleep after a claim that found nothing ready. Default 500 ms. */
    public Builder pollInterval(Duration pollInterval) {
      this.pollInterval = pollInterval;
      return this;
    }

    /**
     * How long a claim owns its messages. A handler running longer counts as failed; no new handler
     * of a batch starts after half of it. Default 30 s.
     */
    public Builder lease(Duration lease) {
      this.lease = lease;
      return this;
    }

    /** Attempts before a message is dead-lettered (at least 1). Default 10. */
    public Builder maxAttempts(int maxAttempts) {
      this.maxAttempts = maxAttempts;
      return this;
    }

    /** Backoff before a retry: doubles from {@code initial} up to {@code max}, equal jitter. */
    public Builder backoff(Duration initial, Duration max) {
      this.backoffInitial = initial;
      this.backoffMax = max;
      return this;
    }

    /** How long sent messages and inbox rows are kept before the purge. Default 7 days. */
    public Builder retention(Duration retention) {
      this.retention = retention;
      return this;
    }

    /** How often the worker purges. Default 1 hour. */
    public Builder purgeInterval(Duration purgeInterval) {
      this.purgeInterval = purgeInterval;
      return this;
    }

    /** Handlers run in parallel for messages of different aggregates (at least 1). Default 1. */
    public Builder handlerConcurrency(int handlerConcurrency) {
      this.handlerConcurrency = handlerConcurrency;
      return this;
    }

    /** Longest {@link OutboxRelay#close()} waits for running handlers. Default 30 s. */
    public Builder shutdownTimeout(Duration shutdownTimeout) {
      this.shutdownTimeout = shutdownTimeout;
      return this;
    }

    /** Source of time for leases, backoff and purge cutoffs. Default: the UTC system clock. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** Source of claim tokens; each claim needs a unique one. Default: random UUIDs. */
    public Builder claimTokens(Supplier<String> claimTokens) {
      this.claimTokens = Objects.requireNonNull(claimTokens, "claimTokens");
      return this;
    }

    /** Reads payloads for {@link OutboxMessage#payloadAs}. Default: {@code new ObjectMapper()}. */
    public Builder objectMapper(ObjectMapper mapper) {
      this.mapper = Objects.requireNonNull(mapper, "objectMapper");
      return this;
    }

    /** Publishes the relay's metrics there (Micrometer is an optional dependency). */
    public Builder meterRegistry(MeterRegistry registry) {
      this.meterRegistry = Objects.requireNonNull(registry, "meterRegistry");
      return this;
    }

    /**
     * On PostgreSQL, whether to {@code LISTEN} on a dedicated connection and wake at each commit of
     * a notifying writer. Default true; ignored elsewhere.
     */
    public Builder listen(boolean listen) {
      this.listen = listen;
      return this;
    }

    public OutboxRelay build() {
      if (handlers.isEmpty()) {
        throw new IllegalArgumentException("handlers: register at least one handler(topic, ...)");
      }
      requireRange("batchSize", batchSize, 1, 10_000);
      requirePositive("pollInterval", pollInterval);
      requirePositive("lease", lease);
      requireRange("maxAttempts", maxAttempts, 1, 1_000_000);
      requirePositive("backoff initial", backoffInitial);
      requirePositive("backoff max", backoffMax);
      if (backoffMax.compareTo(backoffInitial) < 0) {
        throw new IllegalArgumentException(
            "backoff max must be at least backoff initial, was "
                + backoffMax
                + " < "
                + backoffInitial);
      }
      requirePositive("retention", retention);
      requirePositive("purgeInterval", purgeInterval);
      requireRange("handlerConcurrency", handlerConcurrency, 1, 1_000);
      requirePositive("shutdownTimeout", shutdownTimeout);
      return new OutboxRelay(this);
    }

    private static void requireRange(String setting, int value, int min, int max) {
      if (value < min || value > max) {
        throw new IllegalArgumentException(
            setting + " must be between " + min + " and " + max + ", was " + value);
      }
    }

    private static void requirePositive(String setting, Duration value) {
      if (value == null || value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException(setting + " must be a positive duration, was " + value);
      }
    }
  }
}
