package dev.jooqoutbox.testing;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.Resolution;
import dev.jooqoutbox.internal.repository.ClaimRequest;
import dev.jooqoutbox.internal.repository.PurgeRun;
import dev.jooqoutbox.internal.repository.RelayStore;
import dev.jooqoutbox.internal.repository.UnknownClaim;
import dev.jooqoutbox.internal.repository.WakeupListener;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * The relay's store as a model in memory: what {@link RelayStore} promises, said as plainly as it
 * can be, with none of the databases' floors, windows or locks. A claim sees every committed row; a
 * row written in a transaction that has not committed has its seq already and is seen once it
 * commits ({@link #begin}, {@link #commit}), as a writer's late commit is on a database. The same
 * contract tests run on it and on the three databases ({@code RelayStoreContract}), so what a test
 * shows on the model holds for them. A test fixture, not a fourth database. Thread-safe.
 */
public final class ReferenceStore implements RelayStore {

  private static final ObjectMapper MAPPER = new ObjectMapper();

  /**
   * Bugs a store could have, switched on by a test to show that a simulation on the model finds
   * them ({@code OrderSimulationTest}).
   */
  public enum Fault {
    /** A run may start behind rows another claim holds: the claimer's own held head not asked. */
    RUN_BEHIND_ANOTHERS_LEASE,
    /** A run passes over a pending row it cannot take (backing off) instead of ending before it. */
    RUN_OVER_A_ROW_NOT_READY,
    /** A claim takes a row whose lease still runs (the skip-locked check dropped). */
    TAKE_A_RUNNING_LEASE,
    /** A settle changes a pending row whatever its claim token: after the lease was taken over. */
    SETTLE_WITHOUT_TOKEN
  }

  private final Clock clock;
  private final Set<Fault> faults;
  private final TreeMap<Long, ModelRow> rows = new TreeMap<>();
  private final Set<String> paused = new TreeSet<>();
  private long nextSeq = 1;

  public ReferenceStore(Clock clock) {
    this(clock, Set.of());
  }

  /** A model with {@code faults} switched on. */
  public ReferenceStore(Clock clock, Set<Fault> faults) {
    this.clock = clock;
    this.faults = Set.copyOf(faults);
  }

  // ------------------------------------------------------------------ writes, as an application

  /**
   * Writes a message of {@code aggregate} and {@code topic}, committed, due after {@code delay}.
   */
  public synchronized long write(String aggregate, String topic, Duration delay) {
    long seq = begin(aggregate, topic, delay);
    commit(seq);
    return seq;
  }

  /** Writes a message in a transaction not yet committed: its seq is drawn, no claim sees it. */
  public synchronized long begin(String aggregate, String topic, Duration delay) {
    long seq = nextSeq++;
    Instant now = clock.instant();
    rows.put(
        seq,
        new ModelRow(
            seq,
            "m-" + seq,
            aggregate,
            topic,
            now,
            now.plus(delay),
            0,
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            false));
    return seq;
  }

  /** Commits the write of {@code seq}. */
  public synchronized void commit(long seq) {
    update(seq, r -> !r.committed(), r -> copy(r).committed(true));
  }

  /** Rolls the write of {@code seq} back: no claim ever sees it. */
  public synchronized void rollback(long seq) {
    ModelRow r = rows.get(seq);
    if (r != null && !r.committed()) {
      rows.remove(seq);
    }
  }

  /** The row {@code seq}, or null when there is none (never written, rolled back, purged). */
  public synchronized ModelRow row(long seq) {
    return rows.get(seq);
  }

  /**
   * Makes the pending row {@code seq} due at {@code at}: a backoff that a simulation ends by a step
   * of its own rather than by moving the clock (which would also run leases out).
   */
  public synchronized void makeDue(long seq, Instant at) {
    update(seq, ModelRow::pending, r -> copy(r).availableAt(at));
  }

  /** Every row, in seq order. */
  public synchronized List<ModelRow> rows() {
    return List.copyOf(rows.values());
  }

  // ------------------------------------------------------------------ the claim

  @Override
  public synchronized List<OutboxMessage> claim(ClaimRequest c) {
    List<OutboxMessage> claimed = new ArrayList<>();
    Instant until = c.now().plus(c.lease());
    for (ModelRow r : wouldClaim(c)) {
      ModelRow leased =
          copy(r).claimToken(c.claimToken()).lockedUntil(until).attempts(r.attempts() + 1).build();
      rows.put(r.seq(), leased);
      claimed.add(message(leased));
    }
    return claimed;
  }

  /**
   * The rows {@link #claim} would lease now, in seq order, leasing nothing ({@link ModelClaim}).
   */
  public synchronized List<ModelRow> wouldClaim(ClaimRequest c) {
    return ModelClaim.wouldClaim(rows.values(), c, faults);
  }

  private static OutboxMessage message(ModelRow r) {
    return new OutboxMessage(
        r.seq(),
        r.id(),
        r.aggregate(),
        r.topic(),
        "{\"n\":1}",
        Map.of(),
        r.attempts(),
        r.createdAt(),
        MAPPER);
  }

  // ------------------------------------------------------------------ settles

  @Override
  public synchronized int markSent(String token, Collection<Long> seqs, Instant now) {
    int n = 0;
    for (long seq : seqs) {
      n += settle(token, seq, b -> b.sentAt(now).lastError(null)) ? 1 : 0;
    }
    return n;
  }

  @Override
  public synchronized boolean retryLater(String token, long seq, String error, Instant at) {
    return settle(token, seq, b -> b.lastError(error).availableAt(at));
  }

  @Override
  public synchronized boolean deadLetter(String token, long seq, String error, Instant now) {
    return settle(token, seq, b -> b.lastError(error).deadAt(now));
  }

  @Override
  public synchronized boolean deadLetterExhausted(
      String token, long seq, int maxAttempts, String error, Instant now) {
    return settle(token, seq, b -> b.attempts(maxAttempts).lastError(error).deadAt(now));
  }

  @Override
  public synchronized int release(String token, Collection<Long> seqs) {
    int n = 0;
    for (long seq : seqs) {
      n += settle(token, seq, b -> b.attempts(b.attempts - 1)) ? 1 : 0;
    }
    return n;
  }

  @Override
  public synchronized int extendLeases(
      Collection<String> tokens, Collection<Long> seqs, Instant until) {
    int n = 0;
    for (long seq : seqs) {
      ModelRow r = rows.get(seq);
      if (r != null && r.pending() && r.claimToken() != null && tokens.contains(r.claimToken())) {
        rows.put(seq, r.with(until, r.claimToken()));
        n++;
      }
    }
    return n;
  }

  // ------------------------------------------------------------------ outcomes

  @Override
  public synchronized boolean markUnknown(
      String token, long seq, String remoteRef, String error, Instant now, Instant nextCheck) {
    return settle(
        token,
        seq,
        b ->
            b.outcomeUnknownAt(now)
                .keepRemoteRef(remoteRef)
                .resolution(null)
                .lastError(error)
                .availableAt(nextCheck));
  }

  @Override
  public synchronized boolean reschedule(String token, long seq, Instant at) {
    return settle(token, seq, b -> b.availableAt(at).attempts(Math.max(b.attempts - 1, 0)));
  }

  @Override
  public synchronized List<UnknownClaim> claimDueUnknown(
      Set<String> topics, int limit, Duration lease, String token, Instant now) {
    List<UnknownClaim> claimed = new ArrayList<>();
    for (ModelRow r : rows.values()) {
      if (claimed.size() >= limit) {
        break;
      }
      if (r.pending()
          && r.outcomeUnknownAt() != null
          && topics.contains(r.topic())
          && !r.availableAt().isAfter(now)
          && !r.leasedAt(now)) {
        ModelRow leased = r.with(now.plus(lease), token);
        rows.put(r.seq(), leased);
        claimed.add(new UnknownClaim(message(leased), r.remoteRef(), r.outcomeUnknownAt()));
      }
    }
    return claimed;
  }

  @Override
  public synchronized boolean stillUnknown(
      String token, long seq, String remoteRef, Instant nextCheck) {
    return settle(token, seq, b -> b.keepRemoteRef(remoteRef).availableAt(nextCheck));
  }

  @Override
  public synchronized boolean resolveClaimed(
      String token, long seq, Resolution resolution, String reason, Instant now) {
    return settle(
        token,
        seq,
        b -> {
          b.outcomeUnknownAt(null).resolution(resolution.name().toLowerCase(java.util.Locale.ROOT));
          switch (resolution) {
            case SENT -> b.sentAt(now);
            case RETRY -> b.availableAt(now).attempts(Math.max(b.attempts - 1, 0));
            case DEAD -> b.deadAt(now).lastError(reason);
          }
          return b;
        });
  }

  // ------------------------------------------------------------------ housekeeping

  /** An operator pauses {@code topic}; true when it was not paused. */
  public synchronized boolean pause(String topic) {
    return paused.add(topic);
  }

  /** An operator resumes {@code topic}; true when it was paused. */
  public synchronized boolean resume(String topic) {
    return paused.remove(topic);
  }

  @Override
  public synchronized Set<String> pausedTopics() {
    return Set.copyOf(paused);
  }

  @Override
  public synchronized long unknownCount() {
    return rows.values().stream().filter(r -> r.pending() && r.outcomeUnknownAt() != null).count();
  }

  @Override
  public synchronized long pendingCount() {
    return rows.values().stream().filter(ModelRow::pending).count();
  }

  @Override
  public synchronized Duration oldestPendingAge(Instant now) {
    // The first pending row in seq order, as the databases read it.
    return rows.values().stream()
        .filter(ModelRow::pending)
        .findFirst()
        .map(r -> Duration.between(r.createdAt(), now))
        .filter(age -> !age.isNegative())
        .orElse(Duration.ZERO);
  }

  @Override
  public PurgeRun startPurge(Instant cutoff, int batchSize) {
    if (batchSize <= 0) {
      throw new IllegalArgumentException("batchSize must be positive, was " + batchSize);
    }
    return new ModelPurge(this, rows, cutoff, batchSize);
  }

  /** None: a relay on the model polls, as on MariaDB and SQLite. */
  @Override
  public WakeupListener wakeupListener(Runnable onNotification, Duration reconnectDelay) {
    return null;
  }

  // ------------------------------------------------------------------ rows changed

  /** Applies {@code change} to the row {@code seq} when its lease is {@code token}'s; ends it. */
  private boolean settle(
      String token, long seq, java.util.function.UnaryOperator<RowBuilder> change) {
    Predicate<ModelRow> owned =
        faults.contains(Fault.SETTLE_WITHOUT_TOKEN) ? ModelRow::pending : r -> r.ownedBy(token);
    return update(seq, owned, r -> change.apply(copy(r)).claimToken(null).lockedUntil(null));
  }

  private boolean update(
      long seq,
      Predicate<ModelRow> when,
      java.util.function.Function<ModelRow, RowBuilder> change) {
    ModelRow r = rows.get(seq);
    if (r == null || !when.test(r)) {
      return false;
    }
    rows.put(seq, change.apply(r).build());
    return true;
  }

  private static RowBuilder copy(ModelRow r) {
    return new RowBuilder(r);
  }
}
