package dev.jooqoutbox.internal.relay;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/** Lets a notification or a shutdown cut the worker's poll sleep short. */
public final class Wakeup {

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition signalled = lock.newCondition();
  private boolean pending;

  public void signal() {
    lock.lock();
    try {
      pending = true;
      signalled.signalAll();
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
        nanos = signalled.awaitNanos(nanos);
      }
      pending = false;
    } finally {
      lock.unlock();
    }
  }

  /** As {@link #await}, for tests and callers that think in milliseconds. */
  public void await(long millis) throws InterruptedException {
    await(Duration.ofNanos(TimeUnit.MILLISECONDS.toNanos(millis)));
  }
}
