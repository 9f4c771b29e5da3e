package dev.jooqoutbox.internal.relay;

/**
 * Where lanes run their handlers: {@link HandlerThreads} in a relay; in the seeded simulation of
 * the engine, a queue whose tasks the simulation runs one at a time in the order its seed picks.
 */
interface HandlerExecutor {

  /**
   * Runs {@code task} on a handler thread.
   *
   * @throws java.util.concurrent.RejectedExecutionException once shut down
   */
  void execute(Runnable task);

  /** One thread is stuck in a handler past its time: keep the others' capacity. */
  void abandoned();

  /** A stuck handler returned. */
  void recovered();

  /** Starts no new task; waits up to {@code millis} for running ones, then interrupts them. */
  boolean shutdown(long millis) throws InterruptedException;
}
