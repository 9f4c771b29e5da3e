package dev.jooqoutbox.internal.relay;

import dev.jooqoutbox.internal.repository.RelayStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;

/**
 * Extends the lease of every message in flight (running, or waiting in its lane) once a sixth of it
 * has gone, and every sixth after that, guarded by the claim token: a slow but alive handler keeps
 * its message, a dead relay's leases still run out, and a lease another relay has taken over is
 * never touched. When a beat is due, at least two thirds of every lease in flight are left, so a
 * late beat (a GC pause, a slow statement, a starved machine) has that long to come; extending only
 * once half a lease was gone left a third, which a 2 s test lease on a loaded CI machine ran
 * through.
 */
record Heartbeat(RelayConfig config, RelayStore store, InFlight inFlight, Set<Fault> faults) {

  private static final Logger log = RelayLog.LOG;
  private static final int SEQS_PER_STATEMENT = 1000;

  /** Test-only switches that bring back bugs, for the simulation to find them. */
  enum Fault {
    /** Extends a lease only once half of it is gone, as the heartbeat once did. */
    EXTEND_AT_HALF
  }

  /**
   * Beats on its own timer until the timers close: a beat may wait on the database (a lock, a slow
   * statement), and nothing else that is due may wait behind it.
   */
  void start(RelayTimers timers) {
    timers.timer("heartbeat").every(period(), period(), this::beat);
  }

  private Duration period() {
    return period(config.claiming().lease());
  }

  /** How often the heartbeat beats: a sixth of the lease. */
  static Duration period(Duration lease) {
    return lease.dividedBy(6);
  }

  /**
   * Whether a beat at {@code now} extends a claim whose lease ends at {@code leaseEnd}: once it is
   * at least a beat old. A younger one is left to the next beat, so a fast drain writes no
   * extension of the claims it settles within a beat.
   */
  static boolean due(Instant leaseEnd, Instant now, Duration lease, Set<Fault> faults) {
    Duration left =
        faults.contains(Fault.EXTEND_AT_HALF) ? lease.dividedBy(2) : lease.minus(period(lease));
    return !leaseEnd.isAfter(now.plus(left));
  }

  void beat() {
    Map<String, InFlight.Claim> claims = inFlight.claims();
    if (claims.isEmpty()) {
      return;
    }
    Instant now = config.clock().instant();
    Duration lease = config.claiming().lease();
    Instant until = now.plus(lease);
    List<String> tokens = new ArrayList<>();
    claims.forEach(
        (token, claim) -> {
          if (due(claim.leaseEnd, now, lease, faults)) {
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
          seqs.addAll(claim.unsettled);
        }
        if (i == tokens.size() - 1 || seqs.size() >= SEQS_PER_STATEMENT) {
          store.extendLeases(some, seqs, until);
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
