package dev.jooqoutbox.internal.relay;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The threads lanes run on: {@code handlerConcurrency} of them, plus one for each handler that was
 * abandoned (it ran past the maximum handling time and ignored its interrupt). The replacement
 * keeps the relay's capacity; it goes away when the stuck handler finally returns.
 */
final class HandlerThreads implements HandlerExecutor {

  private final ThreadPoolExecutor pool;
  private int stuck;

  HandlerThreads(int concurrency) {
    this.pool =
        new ThreadPoolExecutor(
            concurrency,
            concurrency,
            30,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            RelayThreads.daemon("outbox-handler-"));
  }

  @Override
  public void execute(Runnable task) {
    pool.execute(task);
  }

  /** One thread is stuck in a handler: add one so that other lanes keep their capacity. */
  @Override
  public synchronized void abandoned() {
    stuck++;
    resize(pool.getMaximumPoolSize() + 1);
  }

  /** A stuck handler returned: its extra thread is no longer needed. */
  @Override
  public synchronized void recovered() {
    if (stuck > 0) {
      stuck--;
      resize(pool.getMaximumPoolSize() - 1);
    }
  }

  private void resize(int size) {
    // Grow the maximum first and shrink the core first: core may never exceed maximum.
    if (size > pool.getMaximumPoolSize()) {
      pool.setMaximumPoolSize(size);
      pool.setCorePoolSize(size);
    } else {
      pool.setCorePoolSize(size);
      pool.setMaximumPoolSize(size);
    }
  }

  /** Starts no new lane; waits up to {@code millis} for running handlers, then interrupts them. */
  @Override
  public boolean shutdown(long millis) throws InterruptedException {
    pool.shutdown();
    if (pool.awaitTermination(millis, TimeUnit.MILLISECONDS)) {
      return true;
    }
    pool.shutdownNow();
    return pool.awaitTermination(1, TimeUnit.SECONDS);
  }
}
