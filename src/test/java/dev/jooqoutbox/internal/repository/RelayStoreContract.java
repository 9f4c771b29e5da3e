package dev.jooqoutbox.internal.repository;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.Resolution;
import dev.jooqoutbox.testing.ModelRow;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What the relay engine relies on from its store ({@link RelayStore}), said through that seam only,
 * so that the same tests run on the three databases and on the model in memory ({@code
 * ReferenceStore}): a simulation of the engine on the model then shows what holds on the databases.
 * The claim's runs, leases and held claims; every settle and its token; the outcomes of unknown
 * deliveries; the housekeeping's counts and purge.
 */
abstract class RelayStoreContract extends StoreContract {

  private static final Set<String> TOPICS = Set.of("t");

  // ------------------------------------------------------------------ the claim

  @Test
  void aClaimTakesARunOfAnAggregateInSeqOrderAndTheRestWaitsWhileItIsLeased() {
    List<Long> a = writeAll("a", 5);

    List<OutboxMessage> first = claim("token-1", 10, 3);
    assertThat(seqs(first)).containsExactlyElementsOf(a.subList(0, 3));
    assertThat(first).extracting(OutboxMessage::attempt).containsOnly(1);
    ModelRow leased = row(a.get(0));
    assertThat(leased.claimToken()).isEqualTo("token-1");
    assertThat(leased.lockedUntil()).isEqualTo(now().plus(LEASE));
    assertThat(claim("token-2", 10, 3)).isEmpty();

    assertThat(store().markSent("token-1", a.subList(0, 3), now())).isEqualTo(3);
    assertThat(row(a.get(0)).sentAt()).isEqualTo(now());
    assertThat(row(a.get(0)).claimToken()).isNull();
    assertThat(seqs(claim("token-3", 10, 3))).containsExactlyElementsOf(a.subList(3, 5));
  }

  @Test
  void theLimitSpansSeveralAggregatesInSeqOrder() {
    long a1 = write("a");
    long b1 = write("b");
    long a2 = write("a");
    long b2 = write("b");
    long a3 = write("a");
    write("b");
    long c1 = write("c");

    assertThat(seqs(claim("token-1", 5, 3))).containsExactly(a1, b1, a2, b2, a3);
    // b3 is ready, but older rows of b are leased: nothing of a or b.
    assertThat(seqs(claim("token-2", 5, 3))).containsExactly(c1);
  }

  @Test
  void aRunStopsBeforeAMessageNotYetDueAndATopicNotAskedForHoldsItsAggregateBack() {
    long a1 = write("a");
    long a2 = subject().write("a", "t", Duration.ofMinutes(1));
    long a3 = write("a");
    long b1 = subject().write("b", "other", Duration.ZERO);
    write("b");

    List<OutboxMessage> first = claim("token-1", 10, 5);
    assertThat(seqs(first)).containsExactly(a1);
    store().markSent("token-1", List.of(a1), now());
    assertThat(claim("token-2", 10, 5)).isEmpty();

    subject().clock().advance(Duration.ofMinutes(1));
    assertThat(seqs(claim("token-3", 10, 5))).containsExactly(a2, a3);
    assertThat(row(b1).claimToken()).isNull();
  }

  @Test
  void aLeaseThatRanOutIsClaimedAgainWithTheNextAttemptAndTheFirstClaimerSettlesNothing() {
    long a1 = write("a");
    claim("token-1", 10, 1);
    subject().clock().advance(LEASE);

    List<OutboxMessage> again = claim("token-2", 10, 1);
    assertThat(seqs(again)).containsExactly(a1);
    assertThat(again.get(0).attempt()).isEqualTo(2);
    assertThat(store().markSent("token-1", List.of(a1), now())).isZero();
    assertThat(store().retryLater("token-1", a1, "late", now())).isFalse();
    assertThat(store().release("token-1", List.of(a1))).isZero();
    assertThat(row(a1).claimToken()).isEqualTo("token-2");
    assertThat(row(a1).sentAt()).isNull();
  }

  @Test
  void aRunStartsRightBehindTheClaimersOwnRowsButNeverBehindAnothersOrMoreThanOneRun() {
    List<Long> a = writeAll("a", 6);
    List<Long> b = writeAll("b", 2);
    claim("token-1", 2, 2); // a1, a2
    claim("token-other", 1, 1); // b1

    List<OutboxMessage> behind =
        store().claim(request("token-2", 10, 2, new HeldClaims(Set.of("token-1"), 2)));
    assertThat(seqs(behind)).containsExactly(a.get(2), a.get(3));
    assertThat(seqs(behind)).doesNotContain(b.get(1));

    // Four rows of a held now: more than one run (2) in flight, so no run behind them.
    assertThat(
            store()
                .claim(request("token-3", 10, 2, new HeldClaims(Set.of("token-1", "token-2"), 4))))
        .isEmpty();
  }

  // ------------------------------------------------------------------ settles

  @Test
  void aReleaseGivesTheAttemptBackAndTheRowIsClaimableAtOnce() {
    long a1 = write("a");
    claim("token-1", 10, 1);

    assertThat(store().release("token-1", List.of(a1))).isEqualTo(1);
    assertThat(row(a1).attempts()).isZero();
    List<OutboxMessage> again = claim("token-2", 10, 1);
    assertThat(seqs(again)).containsExactly(a1);
    assertThat(again.get(0).attempt()).isEqualTo(1);
  }

  @Test
  void aRetryKeepsTheErrorAndHoldsTheAggregateBackUntilItIsDue() {
    long a1 = write("a");
    long a2 = write("a");
    claim("token-1", 10, 1);

    assertThat(store().retryLater("token-1", a1, "boom", now().plusSeconds(10))).isTrue();
    ModelRow retried = row(a1);
    assertThat(retried.lastError()).isEqualTo("boom");
    assertThat(retried.attempts()).isEqualTo(1);
    assertThat(retried.claimToken()).isNull();
    assertThat(claim("token-2", 10, 5)).isEmpty();

    subject().clock().advance(Duration.ofSeconds(10));
    List<OutboxMessage> again = claim("token-3", 10, 5);
    assertThat(seqs(again)).containsExactly(a1, a2);
    assertThat(again.get(0).attempt()).isEqualTo(2);
  }

  @Test
  void aDeadLetterLetsTheAggregateGoOnAndAnExhaustedOneKeepsTheMaximumAttempts() {
    long a1 = write("a");
    long a2 = write("a");
    long b1 = write("b");
    claim("token-1", 10, 1);

    assertThat(store().deadLetter("token-1", a1, "bad", now())).isTrue();
    assertThat(store().deadLetterExhausted("token-1", b1, 3, "used up", now())).isTrue();
    assertThat(row(a1).deadAt()).isEqualTo(now());
    assertThat(row(a1).lastError()).isEqualTo("bad");
    assertThat(row(b1).attempts()).isEqualTo(3);
    assertThat(row(b1).deadAt()).isEqualTo(now());
    assertThat(seqs(claim("token-2", 10, 5))).containsExactly(a2);
  }

  @Test
  void theHeartbeatExtendsOnlyTheRowsItsTokensStillOwn() {
    long a1 = write("a");
    long b1 = write("b");
    long c1 = write("c");
    claim("token-1", 10, 1);
    store().markSent("token-1", List.of(c1), now());
    Instant until = now().plus(LEASE).plusSeconds(60);

    assertThat(store().extendLeases(List.of("token-1"), List.of(a1, b1, c1), until)).isEqualTo(2);
    assertThat(store().extendLeases(List.of("token-9"), List.of(a1), until.plusSeconds(1)))
        .isZero();
    assertThat(row(a1).lockedUntil()).isEqualTo(until);
    assertThat(row(c1).lockedUntil()).isNull();
    subject().clock().advance(LEASE);
    assertThat(claim("token-2", 10, 1)).isEmpty();
  }

  // ------------------------------------------------------------------ outcomes

  @Test
  void anUnknownOutcomeHoldsItsAggregateUntilReconciledWithoutCountingAnAttempt() {
    long a1 = write("a");
    long a2 = write("a");
    claim("token-1", 10, 1);
    Instant nextCheck = now().plusSeconds(5);

    assertThat(store().markUnknown("token-1", a1, "ref-1", "timeout", now(), nextCheck)).isTrue();
    assertThat(row(a1).outcomeUnknownAt()).isEqualTo(now());
    assertThat(store().unknownCount()).isEqualTo(1);
    subject().clock().advance(Duration.ofMinutes(1));
    assertThat(claim("token-2", 10, 5)).as("never claimed for delivery").isEmpty();

    List<UnknownClaim> due = store().claimDueUnknown(TOPICS, 10, LEASE, "token-3", now());
    assertThat(due).extracting(u -> u.message().seq()).containsExactly(a1);
    assertThat(due.get(0).remoteRef()).isEqualTo("ref-1");
    assertThat(row(a1).attempts()).isEqualTo(1);
    assertThat(store().claimDueUnknown(TOPICS, 10, LEASE, "token-4", now())).isEmpty();

    Instant later = now().plusSeconds(30);
    assertThat(store().stillUnknown("token-3", a1, "ref-2", later)).isTrue();
    assertThat(row(a1).remoteRef()).as("a stored reference is kept").isEqualTo("ref-1");
    assertThat(store().claimDueUnknown(TOPICS, 10, LEASE, "token-5", now())).isEmpty();

    subject().clock().advance(Duration.ofSeconds(30));
    store().claimDueUnknown(TOPICS, 10, LEASE, "token-6", now());
    assertThat(store().resolveClaimed("token-6", a1, Resolution.SENT, "seen", now())).isTrue();
    assertThat(row(a1).sentAt()).isEqualTo(now());
    assertThat(store().unknownCount()).isZero();
    assertThat(seqs(claim("token-7", 10, 5))).containsExactly(a2);
  }

  @Test
  void aRetryResolutionGivesTheAttemptBackAndADeadOneKeepsTheReason() {
    long a1 = write("a");
    long b1 = write("b");
    claim("token-1", 10, 1);
    store().markUnknown("token-1", a1, null, "timeout", now(), now());
    store().markUnknown("token-1", b1, null, "timeout", now(), now());
    store().claimDueUnknown(TOPICS, 10, LEASE, "token-2", now());

    assertThat(store().resolveClaimed("token-2", a1, Resolution.RETRY, "again", now())).isTrue();
    assertThat(store().resolveClaimed("token-2", b1, Resolution.DEAD, "gone", now())).isTrue();
    assertThat(store().resolveClaimed("token-2", b1, Resolution.SENT, "late", now())).isFalse();
    assertThat(row(b1).deadAt()).isEqualTo(now());
    assertThat(row(b1).lastError()).isEqualTo("gone");
    List<OutboxMessage> again = claim("token-3", 10, 1);
    assertThat(seqs(again)).containsExactly(a1);
    assertThat(again.get(0).attempt()).isEqualTo(1);
  }

  @Test
  void aRescheduleGivesTheAttemptBackAndHoldsTheAggregateUntilItsTime() {
    long a1 = write("a");
    long a2 = write("a");
    claim("token-1", 10, 1);

    assertThat(store().reschedule("token-1", a1, now().plusSeconds(20))).isTrue();
    assertThat(row(a1).attempts()).isZero();
    assertThat(claim("token-2", 10, 5)).isEmpty();
    subject().clock().advance(Duration.ofSeconds(20));
    List<OutboxMessage> again = claim("token-3", 10, 5);
    assertThat(seqs(again)).containsExactly(a1, a2);
    assertThat(again.get(0).attempt()).isEqualTo(1);
  }

  @Test
  void theReconcilerTakesOnlyDueUnknownRowsOfItsTopicsInSeqOrderUpToItsLimit() {
    long a1 = write("a");
    long b1 = write("b");
    long c1 = write("c");
    long d1 = subject().write("d", "other", Duration.ZERO);
    claim("token-1", 10, 1);
    store()
        .claim(new ClaimRequest(Set.of("other"), 10, 1, LEASE, "token-1", now(), HeldClaims.NONE));
    store().markUnknown("token-1", c1, null, "timeout", now(), now());
    store().markUnknown("token-1", a1, null, "timeout", now(), now());
    store().markUnknown("token-1", b1, null, "timeout", now(), now().plusSeconds(60));
    store().markUnknown("token-1", d1, null, "timeout", now(), now());

    assertThat(store().claimDueUnknown(TOPICS, 1, LEASE, "token-2", now()))
        .extracting(u -> u.message().seq())
        .containsExactly(a1);
    assertThat(store().claimDueUnknown(TOPICS, 10, LEASE, "token-3", now()))
        .extracting(u -> u.message().seq())
        .containsExactly(c1);
    assertThat(store().unknownCount()).isEqualTo(4);
  }

  @Test
  void aClaimOfNoTopicOrNoRoomTakesNothingAndMarkSentCountsOnlyWhatTheTokenOwns() {
    long a1 = write("a");
    long b1 = write("b");
    assertThat(store().claim(new ClaimRequest(Set.of(), 10, 1, LEASE, "t", now(), HeldClaims.NONE)))
        .isEmpty();
    assertThat(claim("token-1", 0, 1)).isEmpty();
    claim("token-1", 1, 1);
    claim("token-2", 1, 1);

    assertThat(store().markSent("token-1", List.of(a1, b1), now())).isEqualTo(1);
    assertThat(row(b1).sentAt()).isNull();
    assertThat(row(b1).claimToken()).isEqualTo("token-2");
  }

  // ------------------------------------------------------------------ housekeeping

  @Test
  void theGaugesCountThePendingRowsAndTheOldestAge() {
    write("a");
    subject().clock().advance(Duration.ofSeconds(7));
    long b1 = write("b");
    write("c");
    claim("token-1", 10, 1);
    store().markSent("token-1", List.of(b1), now());

    assertThat(store().pendingCount()).isEqualTo(2);
    assertThat(store().oldestPendingAge(now().plusSeconds(3))).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void thePurgeDeletesOnlyRowsSentBeforeTheCutoff() {
    long a1 = write("a");
    long b1 = write("b");
    long c1 = write("c");
    long d1 = write("d");
    claim("token-1", 10, 1);
    store().markSent("token-1", List.of(a1, b1), now());
    subject().clock().advance(Duration.ofMinutes(1));
    store().markSent("token-1", List.of(c1), now());

    PurgeRun purge = store().startPurge(now(), 1);
    while (purge.next()) {
      // one batch a call
    }
    assertThat(purge.deleted().outboxDeleted()).isEqualTo(2);
    assertThat(row(a1)).isNull();
    assertThat(row(b1)).isNull();
    assertThat(row(c1)).isNotNull();
    assertThat(row(d1)).isNotNull();
  }

  @Test
  void thePurgeKeepsDeadLettersAndPendingRowsHoweverOld() {
    long a1 = write("a");
    long b1 = write("b");
    claim("token-1", 10, 1);
    store().deadLetter("token-1", a1, "bad", now());
    subject().clock().advance(Duration.ofDays(30));

    PurgeRun purge = store().startPurge(now(), 10);
    while (purge.next()) {
      // one batch a call
    }
    assertThat(purge.deleted().outboxDeleted()).isZero();
    assertThat(row(a1).deadAt()).isNotNull();
    assertThat(row(b1)).isNotNull();
  }

  // ------------------------------------------------------------------ helpers

  private long write(String aggregate) {
    return subject().write(aggregate, "t", Duration.ZERO);
  }

  private ClaimRequest request(String token, int limit, int maxRun, HeldClaims held) {
    return new ClaimRequest(TOPICS, limit, maxRun, LEASE, token, now(), held);
  }

  private List<OutboxMessage> claim(String token, int limit, int maxRun) {
    return store().claim(request(token, limit, maxRun, HeldClaims.NONE));
  }

  @Test
  void thePausedTopicsAreTheOnesAnOperatorPausedAndNotResumed() {
    assertThat(subject().store().pausedTopics()).isEmpty();
    subject().pause("t");
    subject().pause("u");
    subject().pause("t");
    assertThat(subject().store().pausedTopics()).containsExactlyInAnyOrder("t", "u");
    subject().resume("t");
    subject().resume("never");
    assertThat(subject().store().pausedTopics()).containsExactly("u");
  }
}
