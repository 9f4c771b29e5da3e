package dev.jooqoutbox.internal.repository;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.testing.ModelRow;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The claim ({@link RelayStore#claim}) with runs of one: which messages are ready, in which order,
 * and what a claim does to them. Said through the store's seam: it runs on the three databases and
 * on the model ({@code ReferenceStore}); what only a database's claim does (row locks of a claim
 * not yet committed) is {@link DatabaseClaimContract}'s.
 */
abstract class ClaimContract extends StoreContract {

  private static final Set<String> TOPICS = Set.of("t");

  @Test
  void claimsReadyMessagesInSeqOrderUpToTheLimit() {
    long first = write("a", "t");
    long second = write("b", "t");
    long third = write("c", "t");
    long fourth = write("d", "t");
    long fifth = write("e", "t");

    List<OutboxMessage> batch = claim("token-1", 3);
    assertThat(batch).extracting(OutboxMessage::seq).containsExactly(first, second, third);
    assertThat(batch).extracting(OutboxMessage::aggregate).containsExactly("a", "b", "c");
    assertThat(batch).extracting(OutboxMessage::attempt).containsOnly(1);

    assertThat(claim("token-2", 10)).extracting(OutboxMessage::seq).containsExactly(fourth, fifth);
    assertThat(claim("token-3", 10)).isEmpty();
  }

  @Test
  void claimLeasesTheRowsToTheToken() {
    long seq = write("a", "t");

    claim("token-1", 10);

    ModelRow row = row(seq);
    assertThat(row.claimToken()).isEqualTo("token-1");
    assertThat(row.lockedUntil()).isEqualTo(now().plus(LEASE));
    assertThat(row.attempts()).isEqualTo(1);
    assertThat(row.sentAt()).isNull();
    assertThat(row.deadAt()).isNull();
  }

  @Test
  void nothingToClaimForNoTopicsOrNoRoom() {
    long seq = write("a", "t");
    assertThat(claim(Set.of(), 10, 1, "token")).isEmpty();
    assertThat(claim(TOPICS, 0, 1, "token")).isEmpty();
    assertThat(row(seq).attempts()).isZero();
  }

  @Test
  void claimsOnlyTheRequestedTopics() {
    long orders = write("a", "orders");
    write("b", "payments");
    long shipments = write("c", "shipments.v2");

    List<OutboxMessage> batch = claim(Set.of("orders", "shipments.v2"), 10, 1, "token");

    assertThat(batch).extracting(OutboxMessage::seq).containsExactly(orders, shipments);
    assertThat(batch).extracting(OutboxMessage::topic).containsExactly("orders", "shipments.v2");
    assertThat(claim(Set.of("payment"), 10, 1, "token")).isEmpty();
  }

  @Test
  void messageIsClaimableFromItsAvailableAt() {
    long delayed = writeDelayed("a", Duration.ofMinutes(5));
    long due = write("b", "t");

    assertThat(claim("token-1", 10)).extracting(OutboxMessage::seq).containsExactly(due);
    store().markSent("token-1", List.of(due), now());

    clock().advance(Duration.ofMinutes(5).minusMillis(1));
    assertThat(claim("token-2", 10)).isEmpty();

    clock().advance(Duration.ofMillis(1));
    assertThat(claim("token-3", 10)).extracting(OutboxMessage::seq).containsExactly(delayed);
  }

  @Test
  void expiredLeaseMakesTheRowClaimableAgainWithItsAttemptCounted() {
    long seq = write("a", "t");
    Instant leasedUntil = now().plus(LEASE);
    assertThat(claim("token-1", 10)).extracting(OutboxMessage::attempt).containsExactly(1);

    clock().advance(LEASE.minusMillis(1));
    assertThat(claim("token-2", 10)).as("leased until %s", leasedUntil).isEmpty();

    clock().advance(Duration.ofMillis(1));
    List<OutboxMessage> again = claim("token-3", 10);
    assertThat(again).extracting(OutboxMessage::seq).containsExactly(seq);
    assertThat(again).extracting(OutboxMessage::attempt).containsExactly(2);
    assertThat(row(seq).claimToken()).isEqualTo("token-3");
    assertThat(row(seq).lockedUntil()).isEqualTo(now().plus(LEASE));

    clock().advance(LEASE);
    assertThat(claim("token-4", 10)).extracting(OutboxMessage::attempt).containsExactly(3);
  }

  @Test
  void laterMessageOfAnAggregateWaitsForAnOlderPendingOne() {
    long a1 = write("a", "t");
    long b1 = write("b", "t");
    long a2 = write("a", "t");
    long b2 = write("b", "t");

    // a2 and b2 are not ready while a1 and b1 are pending, even in the same batch.
    List<OutboxMessage> batch = claim("token-1", 10);
    assertThat(batch).extracting(OutboxMessage::seq).containsExactly(a1, b1);

    // Leased: still blocking.
    assertThat(claim("token-2", 10)).isEmpty();

    store().markSent("token-1", List.of(b1), now());
    assertThat(claim("token-3", 10)).extracting(OutboxMessage::seq).containsExactly(b2);

    store().markSent("token-1", List.of(a1), now());
    assertThat(claim("token-4", 10)).extracting(OutboxMessage::seq).containsExactly(a2);
  }

  @Test
  void backingOffMessageBlocksItsAggregateUntilSettled() {
    long a1 = write("a", "t");
    long a2 = write("a", "t");
    claim("token-1", 10);
    assertThat(store().retryLater("token-1", a1, "boom", now().plusSeconds(60))).isTrue();

    // The lease is gone, the older message backs off: the later one still waits.
    assertThat(claim("token-2", 10)).isEmpty();
    clock().advance(Duration.ofSeconds(30));
    assertThat(claim("token-3", 10)).isEmpty();

    clock().advance(Duration.ofSeconds(30));
    List<OutboxMessage> retry = claim("token-4", 10);
    assertThat(retry).extracting(OutboxMessage::seq).containsExactly(a1);
    assertThat(retry).extracting(OutboxMessage::attempt).containsExactly(2);

    store().markSent("token-4", List.of(a1), now());
    assertThat(claim("token-5", 10)).extracting(OutboxMessage::seq).containsExactly(a2);
  }

  @Test
  void deadOlderMessageNoLongerBlocksItsAggregate() {
    long a1 = write("a", "t");
    long a2 = write("a", "t");
    claim("token-1", 10);
    assertThat(claim("token-2", 10)).isEmpty();

    assertThat(store().deadLetter("token-1", a1, "poison", now())).isTrue();

    assertThat(claim("token-3", 10)).extracting(OutboxMessage::seq).containsExactly(a2);
  }

  @Test
  void olderPendingMessageOfAnotherTopicBlocksToo() {
    long a1 = write("a", "other");
    long a2 = write("a", "t");

    // Order is per aggregate across topics: a relay for "t" must not overtake a1.
    assertThat(claim("token-1", 10)).isEmpty();

    claim(Set.of("other"), 10, 1, "token-2");
    store().markSent("token-2", List.of(a1), now());
    assertThat(claim("token-3", 10)).extracting(OutboxMessage::seq).containsExactly(a2);
  }

  @Test
  void notYetAvailableOlderMessageBlocksALaterOne() {
    long a1 = writeDelayed("a", Duration.ofMinutes(1));
    long a2 = write("a", "t");

    assertThat(claim("token-1", 10)).isEmpty();

    clock().advance(Duration.ofMinutes(1));
    assertThat(claim("token-2", 10)).extracting(OutboxMessage::seq).containsExactly(a1);
    store().markSent("token-2", List.of(a1), now());
    assertThat(claim("token-3", 10)).extracting(OutboxMessage::seq).containsExactly(a2);
  }

  @Test
  void aggregatesFlowInParallel() {
    for (int i = 0; i < 3; i++) {
      for (String aggregate : List.of("a", "b", "c", "d")) {
        write(aggregate, "t");
      }
    }
    for (int round = 0; round < 3; round++) {
      List<OutboxMessage> batch = claim("token-" + round, 100);
      assertThat(batch).extracting(OutboxMessage::aggregate).containsExactly("a", "b", "c", "d");
      store().markSent("token-" + round, batch.stream().map(OutboxMessage::seq).toList(), now());
    }
    assertThat(claim("token-last", 100)).isEmpty();
  }

  @Test
  void findsReadyAggregatesBehindABusyAggregateThatFillsTheScanWindow() {
    // The front of the backlog is one aggregate: its head is leased, the rest of it is blocked,
    // and it is longer than the seq-order window the first claim pass looks at.
    int busy = ClaimQueries.scanWindow(10) + 50;
    long busyHead = writeMany("busy", busy);
    long quietOne = write("quiet-1", "t");
    long quietTwo = write("quiet-2", "t");
    assertThat(claim("token-busy", 1)).extracting(OutboxMessage::seq).containsExactly(busyHead);

    List<OutboxMessage> batch = claim("token-2", 10);

    assertThat(batch).extracting(OutboxMessage::seq).containsExactly(quietOne, quietTwo);
    assertThat(claim("token-3", 10)).isEmpty();
  }

  @Test
  void aBatchFromBothPassesHoldsOneMessagePerAggregateInSeqOrder() {
    long first = write("a", "t");
    writeMany("a", ClaimQueries.scanWindow(10));
    long beyond = write("b", "t");

    assertThat(claim("token-1", 10)).extracting(OutboxMessage::seq).containsExactly(first, beyond);
  }

  // ---------------------------------------------------------------- helpers

  private List<OutboxMessage> claim(String token, int limit) {
    return claim(TOPICS, limit, 1, token);
  }

  /** Writes {@code count} messages of one aggregate; returns the first seq. */
  private long writeMany(String aggregate, int count) {
    return writeAll(aggregate, count).get(0);
  }
}
