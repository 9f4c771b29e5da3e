package dev.jooqoutbox.internal.relay;

import dev.jooqoutbox.OutboxMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;

/**
 * The claimed run of one aggregate, delivered strictly in seq order: the next message starts only
 * when the previous one succeeded. When one fails (or times out), the lane stops there and gives
 * the rest of its run back without using their attempts; the failed message blocks its aggregate
 * until it is retried. A lane holds a handler thread only while a handler runs on it: an
 * asynchronous handler's stage resumes the lane on a handler thread when it completes. Whether it
 * starts at all, and when, {@link AggregateOrder} decides.
 */
final class Lane implements AggregateOrder.Run {

  private final Lanes lanes;
  private final String token;
  private final List<OutboxMessage> run;
  private final Runnable onEnd;
  // Touched by one thread at a time: each hand-off goes through the executor or a completed stage.
  private int next;

  Lane(Lanes lanes, String token, List<OutboxMessage> run, Runnable onEnd) {
    this.lanes = lanes;
    this.token = token;
    this.run = run;
    this.onEnd = onEnd;
  }

  @Override
  public String aggregate() {
    return run.get(0).aggregate();
  }

  @Override
  public long firstSeq() {
    return run.get(0).seq();
  }

  @Override
  public String token() {
    return token;
  }

  /** Gives the whole run back without starting it (without using its attempts). */
  void giveBackUnstarted() {
    releaseFrom(0);
  }

  void start() {
    resumeOnAHandlerThread();
  }

  private void end(boolean wholeRun, List<Long> undelivered) {
    AggregateOrder.Follower<Lane> following = lanes.order.ended(this, wholeRun, undelivered);
    onEnd.run();
    if (following != null) {
      lanes.follow(following);
    }
  }

  private void resumeOnAHandlerThread() {
    try {
      lanes.threads.execute(this::resume);
    } catch (RejectedExecutionException closed) {
      releaseFrom(next); // the relay closed its handler threads: give the rest back
    }
  }

  /** Runs messages on this thread until the lane ends or waits for an asynchronous handler. */
  private void resume() {
    while (next < run.size()) {
      if (lanes.stopping.getAsBoolean()) {
        releaseFrom(next);
        return;
      }
      OutboxMessage message = run.get(next);
      if (message.attempt() > lanes.config.retryPolicy(message.topic()).maxAttempts()) {
        // Crashes used its attempts up: dead, so it no longer blocks the rest of the lane.
        lanes.completer.submit(new Outcome.Exhausted(token, message));
        next++;
        continue;
      }
      Attempt attempt = new Attempt(lanes, token, message, this::failedAt);
      CompletionStage<?> pending = attempt.run();
      if (pending == null) {
        if (!attempt.succeeded()) {
          return; // failedAt released the rest
        }
        next++;
        continue;
      }
      pending.whenComplete(
          (value, failure) -> {
            if (attempt.finish(failure)) {
              next++;
              resumeOnAHandlerThread();
            }
          });
      return;
    }
    end(true, List.of());
  }

  /** The attempt of message {@code message} failed or timed out: give the rest back. */
  private void failedAt(OutboxMessage message) {
    int failed = run.indexOf(message);
    giveBack(failed + 1, failed);
  }

  private void releaseFrom(int index) {
    giveBack(index, index);
  }

  /**
   * Releases the run from {@code release} on and ends the lane undelivered from {@code undelivered}
   * on (the failed message, when one failed, then the released rest).
   */
  private void giveBack(int release, int undelivered) {
    if (release < run.size()) {
      lanes.completer.submit(
          new Outcome.Released(token, List.copyOf(run.subList(release, run.size()))));
    }
    List<Long> seqs = new ArrayList<>(run.size() - undelivered);
    run.subList(undelivered, run.size()).forEach(m -> seqs.add(m.seq()));
    end(false, seqs);
  }
}
