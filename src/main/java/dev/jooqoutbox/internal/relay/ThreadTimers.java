package dev.jooqoutbox.internal.relay;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/** {@link RelayTimers} on a single-thread executor per timer. */
final class ThreadTimers implements RelayTimers {

  private final List<ScheduledExecutorService> threads = new CopyOnWriteArrayList<>();

  @Override
  public Timer timer(String name) {
    ScheduledExecutorService thread =
        Executors.newSingleThreadScheduledExecutor(RelayThreads.daemon("outbox-" + name + "-"));
    threads.add(thread);
    return new Timer() {
      @Override
      public void every(Duration first, Duration period, Runnable task) {
        thread.scheduleWithFixedDelay(
            task, first.toNanos(), period.toNanos(), TimeUnit.NANOSECONDS);
      }

      @Override
      public void after(Duration delay, Runnable task) {
        thread.schedule(task, delay.toNanos(), TimeUnit.NANOSECONDS);
      }
    };
  }

  @Override
  public long nanoTime() {
    return System.nanoTime();
  }

  @Override
  public long awaitNanos(Lock lock, Condition condition, long nanos) throws InterruptedException {
    return condition.awaitNanos(nanos);
  }

  @Override
  public void close() {
    threads.forEach(ScheduledExecutorService::shutdownNow);
  }
}
