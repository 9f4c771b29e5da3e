package dev.jooqoutbox.internal.relay;

import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.internal.tracing.AttemptSpan;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * One delivery of one message: calls its handler, and reports exactly one outcome, whichever comes
 * first of the handler's result and the maximum handling time. On time-out the handler's thread is
 * interrupted (and replaced, should the handler ignore it); the late result settles nothing. The
 * handler runs inside the attempt's span (when tracing is on), which ends with that outcome.
 */
final class Attempt {

  private final Lanes lanes;
  private final String token;
  private final OutboxMessage message;
  private final Consumer<OutboxMessage> onFailure;
  private final AtomicBoolean decided = new AtomicBoolean();
  private final long startNanos = System.nanoTime();
  private final AttemptSpan span;
  private volatile boolean succeeded;
  // Guarded by this: the thread inside handle(), and whether the time-out abandoned it.
  private Thread runner;
  private boolean abandoned;

  Attempt(Lanes lanes, String token, OutboxMessage message, Consumer<OutboxMessage> onFailure) {
    this.lanes = lanes;
    this.token = token;
    this.message = message;
    this.onFailure = onFailure;
    this.span = lanes.tracing.startAttempt(message);
  }

  /**
   * Calls the handler on this thread. Returns null when the attempt is decided already (the handler
   * returned or threw, or its stage was complete), else the stage to wait for.
   */
  CompletionStage<?> run() {
    lanes.watchdog.watch(this);
    CompletionStage<?> stage;
    synchronized (this) {
      runner = Thread.currentThread();
    }
    CurrentMessage.set(message);
    try {
      stage = span.callInside(() -> lanes.handler(message.topic()).handle(message));
      if (stage == null) {
        throw new NullPointerException(
            "the handler of topic " + message.topic() + " returned null");
      }
    } catch (Throwable failure) { // an Error from one handler must not kill the relay
      stage = CompletableFuture.failedFuture(failure);
    } finally {
      CurrentMessage.clear();
      leaveHandler();
    }
    CompletableFuture<?> future = asFuture(stage);
    if (future != null && future.isDone()) {
      finish(future.handle((value, failure) -> failure).join());
      return null;
    }
    return stage;
  }

  private CompletableFuture<?> asFuture(CompletionStage<?> stage) {
    try {
      return stage.toCompletableFuture();
    } catch (UnsupportedOperationException notOffered) {
      return null;
    }
  }

  private synchronized void leaveHandler() {
    runner = null;
    if (abandoned) {
      // The time-out interrupted this thread and replaced it; it is a pool thread again now.
      Thread.interrupted();
      lanes.threads.recovered();
    }
  }

  boolean succeeded() {
    return succeeded;
  }

  /**
   * Decides the attempt with the handler's result: {@code failure} null for success. Returns true
   * when the lane may go on (this decided it, and it succeeded).
   */
  boolean finish(Throwable failure) {
    if (!decided.compareAndSet(false, true)) {
      return false;
    }
    lanes.watchdog.forget(this);
    Duration took = Duration.ofNanos(System.nanoTime() - startNanos);
    if (failure == null) {
      succeeded = true;
      span.end(null);
      lanes.completer.submit(new Outcome.Sent(token, message, took));
      return true;
    }
    Throwable cause =
        failure instanceof CompletionException && failure.getCause() != null
            ? failure.getCause()
            : failure;
    span.end(cause);
    lanes.completer.submit(new Outcome.Failed(token, message, cause, took));
    onFailure.accept(message);
    return false;
  }

  /** Called by the watchdog when the maximum handling time has passed. */
  void timeOut() {
    if (!decided.compareAndSet(false, true)) {
      return;
    }
    Duration max = lanes.config.handling().maxHandlingTime();
    synchronized (this) {
      if (runner != null) {
        runner.interrupt();
        abandoned = true;
        lanes.threads.abandoned();
      }
    }
    lanes.metrics.timedOut(message.topic());
    TimeoutException timeout =
        new TimeoutException("handler ran past the maximum handling time of " + max);
    span.end(timeout);
    lanes.completer.submit(new Outcome.Failed(token, message, timeout, max));
    onFailure.accept(message);
  }
}
