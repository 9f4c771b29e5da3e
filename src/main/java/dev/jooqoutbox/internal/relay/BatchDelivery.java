package dev.jooqoutbox.internal.relay;

import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.internal.repository.JooqOutboxRepository;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;

/**
 * One relay cycle: claim a batch, run its handlers on up to {@code handlerConcurrency} threads,
 * then settle. Successes are marked sent in one statement at the end of the batch; failures are
 * retried with backoff or dead-lettered; what was not started is released without using an attempt.
 * A batch never holds two messages of one aggregate, so its handlers are independent.
 */
final class BatchDelivery {

  private static final Logger log = RelayLog.LOG;
  private static final long SLOT_WAIT_SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

  /** How many messages a cycle claimed and how many of them it handled. */
  record Result(int claimed, int handled) {}

  private record InFlight(OutboxMessage message, HandlerTask task, Future<Throwable> result) {}

  private final RelayConfig config;
  private final JooqOutboxRepository repository;
  private final Set<String> topics;
  private final RelayMetrics metrics;
  private final Semaphore slots;
  private final ExecutorService handlerThreads;
  private final BooleanSupplier stopping;
  private final MessageFailures failures;

  BatchDelivery(
      RelayConfig config,
      JooqOutboxRepository repository,
      RelayMetrics metrics,
      ExecutorService handlerThreads,
      BooleanSupplier stopping) {
    this.config = config;
    this.repository = repository;
    this.topics = config.handlers().keySet();
    this.metrics = metrics;
    this.slots = new Semaphore(config.handlerConcurrency());
    this.handlerThreads = handlerThreads;
    this.stopping = stopping;
    this.failures = new MessageFailures(config, repository, metrics);
  }

  Result deliver(int limit) {
    String token = config.claimTokens().get();
    Instant claimedAt = config.clock().instant();
    Duration lease = config.lease();
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
      return new Result(0, 0);
    }
    metrics.batchSize(batch.size());
    Instant deadline = claimedAt.plus(lease);
    // Start nothing in the second half of the lease: leave time to settle before it runs out.
    Instant lastStart = claimedAt.plus(lease.dividedBy(2));

    List<Long> unhandled = new ArrayList<>();
    List<InFlight> inFlight = new ArrayList<>(batch.size());
    for (OutboxMessage message : batch) {
      if (stopping.getAsBoolean() || !config.clock().instant().isBefore(lastStart)) {
        unhandled.add(message.seq());
      } else if (message.attempt() > config.maxAttempts()) {
        failures.deadLetterExhausted(token, message);
      } else if (!acquireSlot(lastStart)) {
        unhandled.add(message.seq());
      } else {
        HandlerTask task =
            new HandlerTask(config.handlers().get(message.topic()), message, slots, config.clock());
        inFlight.add(new InFlight(message, task, handlerThreads.submit(task)));
      }
    }
    settle(token, inFlight, deadline, unhandled);
    if (!unhandled.isEmpty()) {
      repository.release(token, unhandled);
    }
    return new Result(batch.size(), batch.size() - unhandled.size());
  }

  private void settle(
      String token, List<InFlight> inFlight, Instant deadline, List<Long> unhandled) {
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
        failures.fail(token, f.message(), failure);
      }
    }
    if (!sent.isEmpty()) {
      int marked = repository.markSent(token, sent, config.clock().instant());
      if (marked < sent.size()) {
        log.warn(
            "outbox relay lost {} of {} messages to another relay before marking them sent (lease"
                + " {} too short?); they will be delivered again",
            sent.size() - marked,
            sent.size(),
            config.lease());
      }
      sentTopics.forEach(metrics::sent);
    }
  }

  /**
   * Waits for a handler slot until {@code lastStart}. Gives up as soon as the relay is closing, and
   * never hands out a slot after that: close stops between messages, so the message waiting here
   * goes back with the unhandled rest instead of starting once a slot frees up.
   */
  private boolean acquireSlot(Instant lastStart) {
    long waitMillis = Math.max(0, Duration.between(config.clock().instant(), lastStart).toMillis());
    long waitNanos = TimeUnit.MILLISECONDS.toNanos(waitMillis); // saturates, never overflows
    long waitStart = System.nanoTime();
    try {
      while (!stopping.getAsBoolean()) {
        long remaining = waitNanos - (System.nanoTime() - waitStart);
        // In slices: a semaphore wait cannot be woken by close().
        if (slots.tryAcquire(
            Math.max(0, Math.min(remaining, SLOT_WAIT_SLICE_NANOS)), TimeUnit.NANOSECONDS)) {
          if (!stopping.getAsBoolean()) {
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
    long waitNanos = Math.max(0, Duration.between(config.clock().instant(), deadline).toNanos());
    try {
      Throwable failure = f.result().get(waitNanos, TimeUnit.NANOSECONDS);
      if (failure == null && f.task().finishedAt().isAfter(deadline)) {
        return new LeaseOverrunException(config.lease());
      }
      return failure;
    } catch (TimeoutException e) {
      f.result().cancel(true);
      f.task().abandon();
      return new LeaseOverrunException(config.lease());
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
}
