package dev.jooqoutbox.internal.relay;

import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.Resolution;
import dev.jooqoutbox.internal.repository.RelayStore;
import dev.jooqoutbox.internal.repository.UnknownClaim;
import dev.jooqoutbox.relay.OutboxReconciler;
import dev.jooqoutbox.relay.Reconciliation;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.slf4j.Logger;

/**
 * Asks the topics' reconcilers about their outcome-unknown messages that are due, on a thread of
 * its own (a slow remote system holds up nothing else). Each message is asked about first {@code
 * reconcileInitial} after it became unknown, then after as long again as it has been unknown, at
 * most {@code reconcileMax} apart: a message that stays unknown costs fewer and fewer questions. A
 * reconciler that throws is treated as "still unknown", so it is asked again on the same schedule.
 * A resolution it writes unblocks the message's aggregate (sent or dead lets the next message go,
 * retry makes it pending again), so it tells the relay at once ({@code onResolved}) rather than
 * leaving that to the next poll.
 */
record Reconciler(RelayConfig config, RelayStore store, RelayMetrics metrics, Resolved onResolved) {

  /** Told of each resolution this reconciler wrote, on its thread. */
  interface Resolved {
    void resolved(OutboxMessage message, Resolution resolution);
  }

  private static final Logger log = RelayLog.LOG;
  private static final Duration MAX_TICK = Duration.ofSeconds(1);
  private static final int MAX_ROUNDS = 100;

  boolean hasWork() {
    return !config.reconciling().reconcilers().isEmpty();
  }

  /** Asks at once, then every tick (the initial backoff, at most a second) on {@code timer}. */
  void start(RelayTimers.Timer timer) {
    Duration tick =
        config.reconciling().initial().compareTo(MAX_TICK) < 0
            ? config.reconciling().initial()
            : MAX_TICK;
    timer.every(Duration.ZERO, tick, this::tick);
  }

  private void tick() {
    try {
      reconcileOnce();
    } catch (RuntimeException e) {
      log.warn("outbox reconciliation failed; trying again shortly", e);
    }
  }

  /** Asks about every message due now; returns how many were resolved. */
  int reconcileOnce() {
    if (!hasWork()) {
      return 0;
    }
    int resolved = 0;
    for (int round = 0; round < MAX_ROUNDS; round++) {
      Instant now = config.clock().instant();
      String token = config.claiming().claimTokens().get();
      List<UnknownClaim> due =
          store.claimDueUnknown(
              config.reconciling().reconcilers().keySet(),
              config.claiming().batchSize(),
              config.claiming().lease(),
              token,
              now);
      for (UnknownClaim claim : due) {
        Resolution resolution = ask(token, claim);
        if (resolution != null) {
          resolved++;
          onResolved.resolved(claim.message(), resolution);
        }
      }
      if (due.size() < config.claiming().batchSize()) {
        break;
      }
    }
    return resolved;
  }

  /** Asks about {@code claim}; returns the resolution it wrote, or null when it wrote none. */
  private Resolution ask(String token, UnknownClaim claim) {
    OutboxMessage message = claim.message();
    OutboxReconciler reconciler = config.reconciling().reconcilers().get(message.topic());
    Reconciliation answer;
    try {
      answer = reconciler.reconcile(message, claim.remoteRef());
      if (answer == null) {
        throw new NullPointerException("the reconciler of " + message.topic() + " returned null");
      }
    } catch (Exception | Error e) { // a reconciler's failure must not stop reconciliation
      metrics.reconciled(message.topic(), "error");
      log.warn(
          "outbox reconciler of topic {} failed on message {}; asking again later",
          message.topic(),
          message.id(),
          e);
      store.stillUnknown(token, message.seq(), null, nextCheck(claim));
      return null;
    }
    metrics.reconciled(message.topic(), answer.toString().replace("still ", ""));
    if (answer.resolution().isEmpty()) {
      store.stillUnknown(token, message.seq(), answer.remoteRef().orElse(null), nextCheck(claim));
      return null;
    }
    Resolution resolution = answer.resolution().get();
    String reason = answer.reason().map(r -> "reconciled dead: " + r).orElse(null);
    boolean won =
        store.resolveClaimed(token, message.seq(), resolution, reason, config.clock().instant());
    log.info(
        "outbox message {} (topic {}) reconciled as {}{}",
        message.id(),
        message.topic(),
        answer,
        won ? "" : " too late: another resolution came first");
    return won ? resolution : null;
  }

  /** As long again as the message has been unknown, within the reconcile backoff's bounds. */
  private Instant nextCheck(UnknownClaim claim) {
    Instant now = config.clock().instant();
    Duration unknownFor =
        claim.since() == null ? Duration.ZERO : Duration.between(claim.since(), now);
    Duration wait = unknownFor;
    if (wait.compareTo(config.reconciling().initial()) < 0) {
      wait = config.reconciling().initial();
    }
    if (wait.compareTo(config.reconciling().max()) > 0) {
      wait = config.reconciling().max();
    }
    return now.plus(wait);
  }
}
