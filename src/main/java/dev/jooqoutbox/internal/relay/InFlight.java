package dev.jooqoutbox.internal.relay;

import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.internal.repository.HeldClaims;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The claimed messages a relay has not settled yet, by claim token, and the window that bounds
 * them: the producer claims only what fits, the completer frees room as it writes outcomes. The
 * heartbeat extends the lease of every token listed here.
 */
final class InFlight {

  /** One claim: its unsettled seqs and when its lease ends (extended by the heartbeat). */
  static final class Claim {
    final Set<Long> unsettled = ConcurrentHashMap.newKeySet();
    volatile Instant leaseEnd;

    Claim(Instant leaseEnd) {
      this.leaseEnd = leaseEnd;
    }
  }

  private final Semaphore window;
  private final int capacity;
  private final Map<String, Claim> claims = new ConcurrentHashMap<>();

  /** Notified when a settle leaves nothing in flight; {@link #awaitEmpty} waits on it. */
  private final Object emptied = new Object();

  InFlight(int capacity) {
    this.capacity = capacity;
    this.window = new Semaphore(capacity);
  }

  /** How many more messages may be claimed now. */
  int room() {
    return window.availablePermits();
  }

  /** How many claimed messages are not settled yet. */
  int size() {
    return capacity - window.availablePermits();
  }

  /** Records a claim of {@code messages}; the caller claimed no more than {@link #room()}. */
  void claimed(String token, List<OutboxMessage> messages, Instant leaseEnd) {
    if (messages.isEmpty()) {
      return;
    }
    if (!window.tryAcquire(messages.size())) {
      throw new IllegalStateException("claimed " + messages.size() + " with room for " + room());
    }
    Claim claim = new Claim(leaseEnd);
    for (OutboxMessage m : messages) {
      claim.unsettled.add(m.seq());
    }
    claims.put(token, claim);
  }

  /** Records that {@code seqs} of {@code token} are settled; frees their room in the window. */
  void settled(String token, List<Long> seqs) {
    Claim claim = claims.get(token);
    if (claim == null) {
      return;
    }
    int freed = 0;
    for (Long seq : seqs) {
      if (claim.unsettled.remove(seq)) {
        freed++;
      }
    }
    if (claim.unsettled.isEmpty()) {
      claims.remove(token, claim);
    }
    window.release(freed);
    if (freed > 0 && size() == 0) {
      synchronized (emptied) {
        emptied.notifyAll();
      }
    }
  }

  /** Waits until nothing is in flight or {@code deadlineNanos} (of {@link System#nanoTime}). */
  void awaitEmpty(long deadlineNanos) throws InterruptedException {
    // The check runs under the monitor the last settle notifies under, after its release: the
    // settle either happened before the check, or its notify comes after the wait began.
    synchronized (emptied) {
      while (size() > 0) {
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0) {
          return;
        }
        TimeUnit.NANOSECONDS.timedWait(emptied, left);
      }
    }
  }

  /** When the lease of {@code token} ends; null when nothing of it is in flight. */
  Instant leaseEnd(String token) {
    Claim claim = claims.get(token);
    return claim == null ? null : claim.leaseEnd;
  }

  /** The claims in flight now, for the next claim to take runs behind. */
  HeldClaims held() {
    return new HeldClaims(claims.keySet(), size());
  }

  /** The claims in flight now, for the heartbeat. */
  Map<String, Claim> claims() {
    return claims;
  }
}
