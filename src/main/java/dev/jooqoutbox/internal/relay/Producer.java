package dev.jooqoutbox.internal.relay;

import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.internal.repository.ClaimRequest;
import dev.jooqoutbox.internal.repository.RelayStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;

/**
 * Claims runs of ready messages into the in-flight window: never more than the window has room for,
 * each claim with a fresh token, registered in flight before any lane starts. A claim may take a
 * run right behind this relay's own unsettled rows of an aggregate ({@link AggregateOrder} delivers
 * it after them). It asks for the topics it handles that no operator paused ({@link PausedTopics}):
 * a paused topic's message holds its aggregate back, as a message of a topic it does not handle.
 */
final class Producer {

  private static final Logger log = RelayLog.LOG;

  /** One claim: its token and its messages in seq order (empty when nothing was ready). */
  record Claimed(String token, List<OutboxMessage> messages) {}

  private final RelayConfig config;
  private final RelayStore store;
  private final InFlight inFlight;
  private final RelayMetrics metrics;
  private final Set<String> topics;
  private final PausedTopics paused;

  Producer(
      RelayConfig config,
      RelayStore store,
      InFlight inFlight,
      RelayMetrics metrics,
      PausedTopics paused) {
    this.config = config;
    this.store = store;
    this.inFlight = inFlight;
    this.metrics = metrics;
    this.topics = config.handlers().keySet();
    this.paused = paused;
  }

  /** Claims up to {@code limit} messages, at most the room left in the window. */
  Claimed claim(int limit) {
    int want = Math.min(limit, inFlight.room());
    String token = config.claiming().claimTokens().get();
    if (want <= 0) {
      return new Claimed(token, List.of());
    }
    Instant now = config.clock().instant();
    Duration lease = config.claiming().lease();
    long start = System.nanoTime();
    List<OutboxMessage> claimed =
        store.claim(
            new ClaimRequest(
                paused.claimable(topics),
                want,
                config.claiming().maxRun(),
                lease,
                token,
                now,
                inFlight.held()));
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    metrics.claimDuration(took);
    if (claimed.isEmpty()) {
      return new Claimed(token, claimed);
    }
    if (took.compareTo(lease.dividedBy(4)) > 0) {
      log.warn(
          "outbox claim took {} ms of a {} ms lease; the database is struggling or the lease is too"
              + " short",
          took.toMillis(),
          lease.toMillis());
    }
    metrics.batchSize(claimed.size());
    inFlight.claimed(token, claimed, now.plus(lease));
    return new Claimed(token, claimed);
  }
}
