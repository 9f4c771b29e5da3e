package dev.jooqoutbox.relay;

import dev.jooqoutbox.OutboxMessage;
import java.util.concurrent.Callable;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs one handler call on a handler thread and holds one of the relay's concurrency slots while it
 * runs. A call the relay gives up on (past the lease) hands its slot back at once via {@link
 * #abandon()}, so a hung handler costs a thread, never the relay's capacity.
 */
final class HandlerTask implements Callable<Throwable> {

  private final OutboxHandler handler;
  private final OutboxMessage message;
  private final Semaphore slots;
  private final AtomicBoolean slotHeld = new AtomicBoolean(true);

  HandlerTask(OutboxHandler handler, OutboxMessage message, Semaphore slots) {
    this.handler = handler;
    this.message = message;
    this.slots = slots;
  }

  /** Runs the handler; returns what it threw, or null on success. Never throws. */
  @Override
  public Throwable call() {
    OutboxRelay.CURRENT.set(message);
    try {
      handler.handle(message);
      return null;
    } catch (Throwable failure) { // an Error from one handler must not kill the relay
      return failure;
    } finally {
      OutboxRelay.CURRENT.remove();
      freeSlot();
    }
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
