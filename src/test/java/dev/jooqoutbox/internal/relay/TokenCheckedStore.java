package dev.jooqoutbox.internal.relay;

import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.Resolution;
import dev.jooqoutbox.internal.repository.ClaimRequest;
import dev.jooqoutbox.internal.repository.PurgeRun;
import dev.jooqoutbox.internal.repository.RelayStore;
import dev.jooqoutbox.internal.repository.UnknownClaim;
import dev.jooqoutbox.internal.repository.WakeupListener;
import dev.jooqoutbox.testing.ModelRow;
import dev.jooqoutbox.testing.ReferenceStore;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The model store as {@link EngineWorld}'s relays see it, checking each settle: a settle of a claim
 * whose row another claim took over (its lease ran out) changes nothing of that row. A change is
 * reported to {@code failure}. A step may make its next claim or settle fail ({@link #failNext}).
 */
final class TokenCheckedStore implements RelayStore {

  private final ReferenceStore store;
  private final Consumer<String> failure;
  // The next claim or settle fails, as a statement the database refused (nothing written).
  boolean failNext;

  private void maybeFail() {
    if (failNext) {
      failNext = false;
      throw new IllegalStateException("the database refused the statement");
    }
  }

  TokenCheckedStore(ReferenceStore store, Consumer<String> failure) {
    this.store = store;
    this.failure = failure;
  }

  /** Runs {@code settle} of {@code seqs} by {@code token}; rows it did not own must not change. */
  private <T> T checked(String what, String token, Collection<Long> seqs, Supplier<T> settle) {
    maybeFail();
    List<ModelRow> before = seqs.stream().map(store::row).toList();
    T result = settle.get();
    for (ModelRow b : before) {
      if (b != null && !token.equals(b.claimToken()) && !b.equals(store.row(b.seq()))) {
        failure.accept(
            what + " by " + token + " changed " + b.seq() + ", leased to " + b.claimToken());
      }
    }
    return result;
  }

  @Override
  public List<OutboxMessage> claim(ClaimRequest request) {
    maybeFail();
    return store.claim(request);
  }

  @Override
  public int markSent(String token, Collection<Long> seqs, Instant now) {
    return checked("sent", token, seqs, () -> store.markSent(token, seqs, now));
  }

  @Override
  public boolean retryLater(String token, long seq, String error, Instant at) {
    return checked("retry", token, List.of(seq), () -> store.retryLater(token, seq, error, at));
  }

  @Override
  public boolean deadLetter(String token, long seq, String error, Instant now) {
    return checked("dead", token, List.of(seq), () -> store.deadLetter(token, seq, error, now));
  }

  @Override
  public boolean deadLetterExhausted(
      String token, long seq, int maxAttempts, String error, Instant now) {
    return checked(
        "exhausted",
        token,
        List.of(seq),
        () -> store.deadLetterExhausted(token, seq, maxAttempts, error, now));
  }

  @Override
  public int release(String token, Collection<Long> seqs) {
    return checked("release", token, seqs, () -> store.release(token, seqs));
  }

  @Override
  public int extendLeases(Collection<String> tokens, Collection<Long> seqs, Instant until) {
    return store.extendLeases(tokens, seqs, until);
  }

  @Override
  public boolean markUnknown(
      String token, long seq, String remoteRef, String error, Instant now, Instant nextCheck) {
    return checked(
        "unknown",
        token,
        List.of(seq),
        () -> store.markUnknown(token, seq, remoteRef, error, now, nextCheck));
  }

  @Override
  public boolean reschedule(String token, long seq, Instant at) {
    return checked("reschedule", token, List.of(seq), () -> store.reschedule(token, seq, at));
  }

  @Override
  public List<UnknownClaim> claimDueUnknown(
      Set<String> topics, int limit, Duration lease, String token, Instant now) {
    return store.claimDueUnknown(topics, limit, lease, token, now);
  }

  @Override
  public boolean stillUnknown(String token, long seq, String remoteRef, Instant nextCheck) {
    return store.stillUnknown(token, seq, remoteRef, nextCheck);
  }

  @Override
  public boolean resolveClaimed(
      String token, long seq, Resolution resolution, String reason, Instant now) {
    return store.resolveClaimed(token, seq, resolution, reason, now);
  }

  @Override
  public Set<String> pausedTopics() {
    return store.pausedTopics();
  }

  @Override
  public long unknownCount() {
    return store.unknownCount();
  }

  @Override
  public long pendingCount() {
    return store.pendingCount();
  }

  @Override
  public Duration oldestPendingAge(Instant now) {
    return store.oldestPendingAge(now);
  }

  @Override
  public PurgeRun startPurge(Instant cutoff, int batchSize) {
    return store.startPurge(cutoff, batchSize);
  }

  @Override
  public WakeupListener wakeupListener(Runnable onNotification, Duration reconnectDelay) {
    return store.wakeupListener(onNotification, reconnectDelay);
  }
}
