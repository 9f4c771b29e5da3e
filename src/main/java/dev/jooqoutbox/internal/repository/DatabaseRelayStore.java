package dev.jooqoutbox.internal.repository;

import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.Resolution;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/** The relay's store on a database: the {@link JooqOutboxRepository} and its outcome statements. */
public record DatabaseRelayStore(JooqOutboxRepository repository) implements RelayStore {

  @Override
  public List<OutboxMessage> claim(ClaimRequest request) {
    return repository.claim(request);
  }

  @Override
  public int markSent(String claimToken, Collection<Long> seqs, Instant now) {
    return repository.markSent(claimToken, seqs, now);
  }

  @Override
  public boolean retryLater(String claimToken, long seq, String error, Instant nextAttemptAt) {
    return repository.retryLater(claimToken, seq, error, nextAttemptAt);
  }

  @Override
  public boolean deadLetter(String claimToken, long seq, String error, Instant now) {
    return repository.deadLetter(claimToken, seq, error, now);
  }

  @Override
  public boolean deadLetterExhausted(
      String claimToken, long seq, int maxAttempts, String error, Instant now) {
    return repository.deadLetterExhausted(claimToken, seq, maxAttempts, error, now);
  }

  @Override
  public int release(String claimToken, Collection<Long> seqs) {
    return repository.release(claimToken, seqs);
  }

  @Override
  public int extendLeases(Collection<String> claimTokens, Collection<Long> seqs, Instant until) {
    return repository.extendLeases(claimTokens, seqs, until);
  }

  @Override
  public boolean markUnknown(
      String token, long seq, String remoteRef, String error, Instant now, Instant nextCheck) {
    return repository.outcomes().markUnknown(token, seq, remoteRef, error, now, nextCheck);
  }

  @Override
  public boolean reschedule(String token, long seq, Instant at) {
    return repository.outcomes().reschedule(token, seq, at);
  }

  @Override
  public List<UnknownClaim> claimDueUnknown(
      Set<String> topics, int limit, Duration lease, String token, Instant now) {
    return repository.outcomes().claimDue(topics, limit, lease, token, now);
  }

  @Override
  public boolean stillUnknown(String token, long seq, String remoteRef, Instant nextCheck) {
    return repository.outcomes().stillUnknown(token, seq, remoteRef, nextCheck);
  }

  @Override
  public boolean resolveClaimed(
      String token, long seq, Resolution resolution, String reason, Instant now) {
    return repository.outcomes().resolveClaimed(token, seq, resolution, reason, now);
  }

  @Override
  public Set<String> pausedTopics() {
    return repository.pauses().paused().keySet();
  }

  @Override
  public long unknownCount() {
    return repository.outcomes().unknownCount();
  }

  @Override
  public long pendingCount() {
    return repository.pendingCount();
  }

  @Override
  public Duration oldestPendingAge(Instant now) {
    return repository.oldestPendingAge(now);
  }

  @Override
  public PurgeRun startPurge(Instant cutoff, int batchSize) {
    return repository.startPurge(cutoff, batchSize);
  }

  @Override
  public WakeupListener wakeupListener(Runnable onNotification, Duration reconnectDelay) {
    return repository.wakeupListener(onNotification, reconnectDelay);
  }
}
