package dev.jooqoutbox.internal.relay;

import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.Resolution;
import dev.jooqoutbox.internal.repository.ClaimRequest;
import dev.jooqoutbox.internal.repository.HeldClaims;
import dev.jooqoutbox.internal.repository.UnknownClaim;
import dev.jooqoutbox.testing.ModelRow;
import dev.jooqoutbox.testing.MutableClock;
import dev.jooqoutbox.testing.ReferenceStore;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The store of {@link OrderWorld}: the {@link ReferenceStore}, the model of the relay's store that
 * passes the same contract as the three databases ({@code RelayStoreContract}), on a clock that
 * only the world's steps move. The time is in seconds from the start.
 */
final class OrderStore {

  static final List<String> AGGREGATES = List.of("a", "b", "c");
  static final Set<String> TOPICS = Set.of("orders", "invoices");

  /** The topic an operator may pause: every third message written is of it. */
  static final String PAUSABLE = "invoices";

  private static final Instant T0 = Instant.parse("2026-12-06T00:00:00Z");

  /** How long a failed attempt backs off: until a step ends it, far beyond any chain's time. */
  private static final Duration BACKOFF = Duration.ofDays(365);

  private final MutableClock clock = new MutableClock(T0);
  final ReferenceStore rows;
  private final int maxRun;
  private final Duration lease;
  private int written;

  OrderStore(int maxRun, long leaseSeconds, Set<ReferenceStore.Fault> faults) {
    this.maxRun = maxRun;
    this.lease = Duration.ofSeconds(leaseSeconds);
    this.rows = new ReferenceStore(clock, faults);
  }

  Instant now() {
    return clock.instant();
  }

  /** Time moves on to {@code instant}. */
  void advanceTo(Instant instant) {
    clock.set(instant);
  }

  /**
   * A writer commits a message to aggregate {@code aggregate} (an index of {@link #AGGREGATES}).
   */
  void write(int aggregate) {
    String topic = written++ % 3 == 2 ? PAUSABLE : "orders";
    rows.write(AGGREGATES.get(aggregate % AGGREGATES.size()), topic, Duration.ZERO);
  }

  /** The time on a clock {@code skew} seconds ahead of the store's (behind when negative). */
  Instant now(long skew) {
    return now().plusSeconds(skew);
  }

  /**
   * The claim of {@code token}: up to {@code limit} rows, holding {@code held}'s leases, at the
   * time of a clock {@code skew} seconds off.
   */
  List<OutboxMessage> claim(
      String token, int limit, Map<String, Set<Long>> held, long skew, Set<String> topics) {
    return rows.claim(request(token, limit, held, skew, topics));
  }

  /**
   * The rows a claim of {@code topics} would take now, holding {@code held}'s leases, leasing
   * nothing.
   */
  List<ModelRow> claimable(Map<String, Set<Long>> held, Set<String> topics) {
    return rows.wouldClaim(request("look", Integer.MAX_VALUE, held, 0, topics));
  }

  private ClaimRequest request(
      String token, int limit, Map<String, Set<Long>> held, long skew, Set<String> topics) {
    int heldRows = held.values().stream().mapToInt(Set::size).sum();
    return new ClaimRequest(
        topics, limit, maxRun, lease, token, now(skew), new HeldClaims(held.keySet(), heldRows));
  }

  /**
   * The aggregates a claim holding {@code held}'s leases passes over for having more than one run
   * of them held before their first row it could take.
   */
  Set<String> passedOver(Set<String> held) {
    Set<String> over = new HashSet<>();
    Map<String, Integer> leading = new java.util.HashMap<>();
    Set<String> stopped = new HashSet<>();
    for (ModelRow r : rows.rows()) {
      if (!r.pending() || stopped.contains(r.aggregate())) {
        continue;
      }
      if (r.claimToken() != null && held.contains(r.claimToken()) && r.leasedAt(now())) {
        if (leading.merge(r.aggregate(), 1, Integer::sum) > maxRun) {
          over.add(r.aggregate());
        }
      } else {
        stopped.add(r.aggregate());
      }
    }
    return over;
  }

  /**
   * The heartbeat: the rows {@code unsettled} names are leased a full lease from now, on a clock
   * {@code skew} seconds off.
   */
  void extend(Map<String, Set<Long>> unsettled, long skew) {
    Set<Long> seqs = new HashSet<>();
    unsettled.values().forEach(seqs::addAll);
    rows.extendLeases(unsettled.keySet(), seqs, now(skew).plus(lease));
  }

  /** The lease, as every claim and extension takes it. */
  Duration lease() {
    return lease;
  }

  /** Whether row {@code seq} is leased to {@code token} and its lease runs. */
  boolean leasedTo(long seq, String token) {
    ModelRow r = rows.row(seq);
    return r != null && token.equals(r.claimToken()) && r.leasedAt(now());
  }

  /** Whether some pending row's lease still runs. */
  boolean anyLeaseRuns() {
    return rows.rows().stream().anyMatch(r -> r.pending() && r.leasedAt(now()));
  }

  /** The pending rows that back off after a failed attempt or a reschedule. */
  List<ModelRow> backingOff() {
    return rows.rows().stream()
        .filter(r -> r.pending() && r.claimToken() == null && r.outcomeUnknownAt() == null)
        .filter(r -> r.availableAt().isAfter(now()))
        .toList();
  }

  /** A failed attempt of {@code row} stops backing off. */
  void endBackoff(ModelRow row) {
    rows.makeDue(row.seq(), now());
  }

  /**
   * A reconciler on a clock {@code skew} seconds off asks about the oldest outcome-unknown row due
   * and resolves it as {@code resolution}; returns that row's message, or null when none is due.
   */
  OutboxMessage reconcile(Resolution resolution, long skew) {
    List<UnknownClaim> due = rows.claimDueUnknown(TOPICS, 1, lease, "reconciler", now(skew));
    if (due.isEmpty()) {
      return null;
    }
    OutboxMessage message = due.get(0).message();
    rows.resolveClaimed("reconciler", message.seq(), resolution, "reconciled", now(skew));
    return message;
  }

  /** The pending rows' seqs. */
  List<Long> pending() {
    return rows.rows().stream().filter(ModelRow::pending).map(ModelRow::seq).toList();
  }

  /** The settles the completer writes, each a compare-and-swap on the claim token. */
  void sent(String token, long seq) {
    rows.markSent(token, List.of(seq), now());
  }

  void retry(String token, long seq) {
    rows.retryLater(token, seq, "failed", now().plus(BACKOFF));
  }

  void dead(String token, long seq) {
    rows.deadLetter(token, seq, "failed for good", now());
  }

  void release(String token, long seq) {
    rows.release(token, List.of(seq));
  }

  /** The outcome is unknown: due for a reconciler at once, on the settling relay's clock. */
  void unknown(String token, long seq, long skew) {
    rows.markUnknown(token, seq, null, "unknown", now(skew), now(skew));
  }

  void reschedule(String token, long seq, long skew) {
    rows.reschedule(token, seq, now(skew).plus(BACKOFF));
  }
}
