package dev.jooqoutbox.internal.relay;

import dev.jooqoutbox.internal.repository.JooqOutboxRepository;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;

/**
 * Extends the lease of every message in flight (running, or waiting in its lane) every third of the
 * lease, guarded by the claim token: a slow but alive handler keeps its message, a dead relay's
 * leases still run out, and a lease another relay has taken over is never touched.
 */
record Heartbeat(RelayConfig config, JooqOutboxRepository repository, InFlight inFlight) {

  private static final Logger log = RelayLog.LOG;
  private static final int SEQS_PER_STATEMENT = 1000;

  void start(ScheduledExecutorService timer) {
    long period = config.lease().dividedBy(6).toNanos();
    timer.scheduleWithFixedDelay(this::beat, period, period, TimeUnit.NANOSECONDS);
  }

  void beat() {
    Map<String, InFlight.Claim> claims = inFlight.claims();
    if (claims.isEmpty()) {
      return;
    }
    Instant now = config.clock().instant();
    Instant until = now.plus(config.lease());
    Instant soon = now.plus(config.lease().dividedBy(2));
    List<String> tokens = new ArrayList<>();
    claims.forEach(
        (token, claim) -> {
          if (claim.leaseEnd.isBefore(soon)) {
            tokens.add(token);
          }
        });
    try {
      // A statement per batch of claims, at most SEQS_PER_STATEMENT rows: its work is bounded by
      // the window, not by the backlog.
      List<String> some = new ArrayList<>();
      List<Long> seqs = new ArrayList<>();
      for (int i = 0; i < tokens.size(); i++) {
        InFlight.Claim claim = claims.get(tokens.get(i));
        if (claim != null) {
          some.add(tokens.get(i));
          seqs.addAll(claim.unsettled.keySet());
        }
        if (i == tokens.size() - 1 || seqs.size() >= SEQS_PER_STATEMENT) {
          repository.extendLeases(some, seqs, until);
          for (String token : some) {
            InFlight.Claim extended = claims.get(token);
            if (extended != null) {
              extended.leaseEnd = until;
            }
          }
          some.clear();
          seqs.clear();
        }
      }
    } catch (RuntimeException e) {
      log.warn("outbox relay could not extend the leases of its messages in flight", e);
    }
  }
}
