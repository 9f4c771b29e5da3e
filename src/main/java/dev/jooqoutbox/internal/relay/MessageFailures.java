package dev.jooqoutbox.internal.relay;

import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.internal.repository.RelayStore;
import dev.jooqoutbox.relay.OutcomeUnknownException;
import dev.jooqoutbox.relay.PermanentFailureException;
import dev.jooqoutbox.relay.RescheduleException;
import dev.jooqoutbox.relay.RetryPolicy;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;

/**
 * Settles an attempt that did not end in "sent", by what the handler threw: outcome unknown (held
 * for reconciliation), permanent failure (dead at once), reschedule (due again at the chosen time,
 * its attempt given back), or any other failure: retry later with the backoff of its topic's retry
 * policy, or dead-letter after its last attempt.
 */
record MessageFailures(RelayConfig config, RelayStore store, RelayMetrics metrics) {

  private static final Logger log = RelayLog.LOG;

  /**
   * Writes what became of {@code message}; returns whether it is still pending (not dead), so that
   * it holds its aggregate back.
   */
  boolean fail(String token, OutboxMessage message, Throwable failure) {
    Instant now = config.clock().instant();
    boolean pending = true;
    if (failure instanceof OutcomeUnknownException unknown) {
      outcomeUnknown(token, message, unknown, now);
    } else if (failure instanceof RescheduleException reschedule) {
      Instant at = reschedule.nextAttemptAt(now);
      boolean recorded = store.reschedule(token, message.seq(), at);
      metrics.rescheduled(message.topic());
      log.info(
          "outbox message {} (topic {}) rescheduled by its handler to {}{}",
          message.id(),
          message.topic(),
          at,
          owner(recorded));
    } else if (failure instanceof PermanentFailureException permanent) {
      String reason = "permanent failure: " + Failures.describe(permanent);
      deadLetter(token, message, "failed for good at attempt {}", reason, now);
      pending = false;
    } else {
      pending = retryOrDeadLetter(token, message, failure, now);
    }
    log.debug("outbox handler failure of message {}", message.id(), failure);
    return pending;
  }

  private void outcomeUnknown(
      String token, OutboxMessage message, OutcomeUnknownException unknown, Instant now) {
    String remoteRef = unknown.remoteRef().orElse(null);
    boolean recorded =
        store.markUnknown(
            token,
            message.seq(),
            remoteRef,
            Failures.describe(unknown),
            now,
            now.plus(config.reconciling().initial()));
    metrics.unknown(message.topic());
    log.warn(
        "outbox message {} (topic {}, remote ref {}) has an unknown outcome; it blocks its"
            + " aggregate until reconciled{}: {}",
        message.id(),
        message.topic(),
        remoteRef,
        owner(recorded),
        unknown.getMessage());
  }

  /** Returns whether it is retried (else dead-lettered). */
  private boolean retryOrDeadLetter(
      String token, OutboxMessage message, Throwable failure, Instant now) {
    String error = Failures.describe(failure);
    RetryPolicy policy = config.retryPolicy(message.topic());
    if (message.attempt() >= policy.maxAttempts()) {
      deadLetter(token, message, "failed its last attempt {}", error, now);
      return false;
    }
    Duration wait =
        new Backoff(policy.backoffInitial(), policy.backoffMax())
            .after(message.attempt(), message.seq());
    boolean recorded = store.retryLater(token, message.seq(), error, now.plus(wait));
    metrics.failed(message.topic());
    log.warn(
        "outbox message {} (topic {}) failed attempt {}; retry in {} ms{}: {}",
        message.id(),
        message.topic(),
        message.attempt(),
        wait.toMillis(),
        owner(recorded),
        error);
    return true;
  }

  private void deadLetter(
      String token, OutboxMessage message, String what, String error, Instant now) {
    boolean recorded = store.deadLetter(token, message.seq(), error, now);
    metrics.deadLettered(message.topic());
    log.error(
        "outbox message {} (topic {}) " + what + " and is dead-lettered{}: {}",
        message.id(),
        message.topic(),
        message.attempt(),
        owner(recorded),
        error);
  }

  /** A message whose claims kept dying with their relay: dead-lettered without running. */
  void deadLetterExhausted(String token, OutboxMessage message) {
    int maxAttempts = config.retryPolicy(message.topic()).maxAttempts();
    String error =
        "attempts used up by crashes or expired leases (claimed "
            + message.attempt()
            + " times, max "
            + maxAttempts
            + ")";
    store.deadLetterExhausted(token, message.seq(), maxAttempts, error, config.clock().instant());
    metrics.deadLettered(message.topic());
    log.error(
        "outbox message {} (topic {}) dead-lettered without running: {}",
        message.id(),
        message.topic(),
        error);
  }

  private static String owner(boolean recorded) {
    return recorded ? "" : " (another relay owns it now)";
  }
}
