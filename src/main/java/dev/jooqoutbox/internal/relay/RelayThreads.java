package dev.jooqoutbox.internal.relay;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/** What the relay's threads share: how they are made, wait and back off after errors. */
final class RelayThreads {

  private static final Duration MAX_ERROR_DELAY = Duration.ofSeconds(30);

  private RelayThreads() {}

  /** Daemon threads named {@code prefix} and a number, so that a relay never keeps a JVM alive. */
  static ThreadFactory daemon(String prefix) {
    AtomicInteger counter = new AtomicInteger();
    return runnable -> {
      Thread t = new Thread(runnable, prefix + counter.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  /** The wait after a database error: doubles from {@code first} up to 30 s. */
  static Duration nextErrorDelay(Duration previous, Duration first) {
    Duration next = previous.isZero() ? first : previous.multipliedBy(2);
    return next.compareTo(MAX_ERROR_DELAY) > 0 ? MAX_ERROR_DELAY : next;
  }

  /** Waits for {@code latch}, keeping (and restoring) an interrupt for the caller. */
  static void awaitUninterruptibly(CountDownLatch latch) {
    boolean interrupted = false;
    while (true) {
      try {
        latch.await();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
