package dev.jooqoutbox.internal.relay;

import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.relay.OutboxHandler;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Callable;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs one handler call on a handler thread and holds one of the relay's concurrency slots while it
 * runs. A call the relay gives up on (past the lease) hands its slot back at once via {@link
 * #abandon()}, so a hung handler costs a thread, never the relay's capacity.
 *
 * <p>It records when the handler finished (on the relay's clock) and how long it ran: the relay
 * collects the results of a batch one after another, often long after most handlers finished, so
 * neither can be measured from the collecting thread.
 */
final class HandlerTask implements Callable<Throwable> {

  private final OutboxHandler handler;
  private final OutboxMessage message;
  private final Semaphore slots;
  private final Clock clock;
  private final AtomicBoolean slotHeld = new AtomicBoolean(true);
  private volatile Instant finishedAt;
  private volatile boolean started;
  private volatile long startNanos;
  private volatile long runNanos = -1;

  HandlerTask(OutboxHandler handler, OutboxMessage message, Semaphore slots, Clock clock) {
    this.handler = handler;
    this.message = message;
    this.slots = slots;
    this.clock = clock;
  }

  /** Runs the handler; returns what it threw, or null on success. Never throws. */
  @Override
  public Throwable call() {
    CurrentMessage.set(message);
    startNanos = System.nanoTime();
    started = true;
    try {
      handler.handle(message);
      return null;
    } catch (Throwable failure) { // an Error from one handler must not kill the relay
      return failure;
    } finally {
      runNanos = System.nanoTime() - startNanos;
      finishedAt = clock.instant();
      CurrentMessage.clear();
      freeSlot();
    }
  }

  /** When the handler returned or threw, on the relay's clock; null while it runs. */
  Instant finishedAt() {
    return finishedAt;
  }

  /** How long the handler ran; for one still running (abandoned past its lease), so far. */
  Duration duration() {
    long run = runNanos;
    if (run >= 0) {
      return Duration.ofNanos(run);
    }
    return started ? Duration.ofNanos(System.nanoTime() - startNanos) : Duration.ZERO;
  }

  void abandon() {
    freeSlot();
  }

  private void freeSlot() {
    if (slotHeld.compareAndSet(true, false)) {
      slots.release();
    }
  }
}
