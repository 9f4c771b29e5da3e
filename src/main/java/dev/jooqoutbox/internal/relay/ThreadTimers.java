package dev.jooqoutbox.internal.relay;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/** {@link RelayTimers} on a single-thread executor per task. */
final class ThreadTimers implements RelayTimers {

  private final List<ScheduledExecutorService> threads = new CopyOnWriteArrayList<>();

  @Override
  public void every(String name, Duration period, Runnable task) {
    ScheduledExecutorService thread =
        Executors.newSingleThreadScheduledExecutor(RelayThreads.daemon("outbox-" + name + "-"));
    threads.add(thread);
    long nanos = period.toNanos();
    thread.scheduleWithFixedDelay(task, nanos, nanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public long nanoTime() {
    return System.nanoTime();
  }

  @Override
  public void close() {
    threads.forEach(ScheduledExecutorService::shutdownNow);
  }
}
