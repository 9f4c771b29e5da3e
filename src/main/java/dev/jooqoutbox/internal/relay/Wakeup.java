package dev.jooqoutbox.internal.relay;

import java.time.Duration;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Lets a notification, a settle or a shutdown cut a thread's wait (the producer's poll, a backoff)
 * short. The wait is measured by the relay's {@link RelayTimers}, so a test moves it by hand.
 */
public final class Wakeup {

  private final RelayTimers timers;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition signalled = lock.newCondition();
  private boolean pending;

  public Wakeup(RelayTimers timers) {
    this.timers = timers;
  }

  public void signal() {
    lock.lock();
    try {
      pending = true;
      signalled.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Takes a signal sent since the last wait or take, without waiting; whether there was one. */
  boolean take() {
    lock.lock();
    try {
      boolean was = pending;
      pending = false;
      return was;
    } finally {
      lock.unlock();
    }
  }

  /** Sleeps up to {@code timeout}, or less when signalled (also by a signal sent before). */
  public void await(Duration timeout) throws InterruptedException {
    long nanos = timeout.toNanos();
    lock.lock();
    try {
      while (!pending && nanos > 0) {
        nanos = timers.awaitNanos(lock, signalled, nanos);
      }
      pending = false;
    } finally {
      lock.unlock();
    }
  }
}
