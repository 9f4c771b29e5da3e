package dev.jooqoutbox.internal.relay;

import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.internal.repository.JooqOutboxRepository;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;

/** Settles a failed attempt: retry later with backoff, or dead-letter after the last attempt. */
final class MessageFailures {

  private static final Logger log = RelayLog.LOG;

  private final RelayConfig config;
  private final JooqOutboxRepository repository;
  private final RelayMetrics metrics;
  private final Backoff backoff;

  MessageFailures(RelayConfig config, JooqOutboxRepository repository, RelayMetrics metrics) {
    this.config = config;
    this.repository = repository;
    this.metrics = metrics;
    this.backoff = new Backoff(config.backoffInitial(), config.backoffMax());
  }

  void fail(String token, OutboxMessage message, Throwable failure) {
    String error = Failures.describe(failure);
    Instant now = config.clock().instant();
    if (message.attempt() >= config.maxAttempts()) {
      boolean recorded = repository.deadLetter(token, message.seq(), error, now);
      metrics.deadLettered(message.topic());
      log.error(
          "outbox message {} (topic {}) failed its last attempt {} and is dead-lettered{}: {}",
          message.id(),
          message.topic(),
          message.attempt(),
          recorded ? "" : " (another relay owns it now)",
          error);
    } else {
      Duration wait = backoff.after(message.attempt());
      boolean recorded = repository.retryLater(token, message.seq(), error, now.plus(wait));
      metrics.failed(message.topic());
      log.warn(
          "outbox message {} (topic {}) failed attempt {}; retry in {} ms{}: {}",
          message.id(),
          message.topic(),
          message.attempt(),
          wait.toMillis(),
          recorded ? "" : " (another relay owns it now)",
          error);
    }
    log.debug("outbox handler failure of message {}", message.id(), failure);
  }

  /** A message whose claims kept dying with their relay: dead-lettered without running. */
  void deadLetterExhausted(String token, OutboxMessage message) {
    String error =
        "attempts used up by crashes or expired leases (claimed "
            + message.attempt()
            + " times, max "
            + config.maxAttempts()
            + ")";
    repository.deadLetterExhausted(
        token, message.seq(), config.maxAttempts(), error, config.clock().instant());
    metrics.deadLettered(message.topic());
    log.error(
        "outbox message {} (topic {}) dead-lettered without running: {}",
        message.id(),
        message.topic(),
        error);
  }
}
