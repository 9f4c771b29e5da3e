package dev.jooqoutbox.internal.repository;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.jooqoutbox.OutboxMessage;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The claim ({@link RelayStore#claim}) with runs: which of an aggregate's messages one claim takes
 * together, where a run stops, and that it never skips a message. Said through the store's seam: it
 * runs on the three databases and on the model ({@code ReferenceStore}); what only a database's
 * claim does (row locks, corrupt rows, the claim's floor) is {@link DatabaseClaimContract}'s.
 */
abstract class ClaimRunContract extends StoreContract {

  private static final Set<String> TOPICS = Set.of("t");

  @Test
  void runOfOneAggregateInSeqOrderUpToMaxRun() {
    List<Long> a = writeAll("a", 5);

    List<OutboxMessage> first = claim("token-1", 10, 3);
    assertThat(first).extracting(OutboxMessage::seq).containsExactlyElementsOf(a.subList(0, 3));
    assertThat(first).extracting(OutboxMessage::attempt).containsOnly(1);
    for (long seq : a.subList(0, 3)) {
      assertThat(row(seq).claimToken()).isEqualTo("token-1");
      assertThat(row(seq).lockedUntil()).isEqualTo(now().plus(LEASE));
    }
    // The rest waits while the run is leased.
    assertThat(claim("token-2", 10, 3)).isEmpty();

    markSent("token-1", first);
    assertThat(claim("token-3", 10, 3))
        .extracting(OutboxMessage::seq)
        .containsExactlyElementsOf(a.subList(3, 5));
  }

  @Test
  void limitSpansSeveralAggregatesInSeqOrder() {
    long a1 = write("a", "t");
    long b1 = write("b", "t");
    long a2 = write("a", "t");
    long b2 = write("b", "t");
    long a3 = write("a", "t");
    write("b", "t");
    long c1 = write("c", "t");

    // The five oldest of the runs, whichever aggregate they belong to.
    assertThat(claim("token-1", 5, 3))
        .extracting(OutboxMessage::seq)
        .containsExactly(a1, b1, a2, b2, a3);
    // b3 is ready but its aggregate's older messages are leased: nothing of b, nothing of a.
    assertThat(claim("token-2", 5, 3)).extracting(OutboxMessage::seq).containsExactly(c1);
  }

  @Test
  void maxRunOneTakesTheOldestMessageOfEachAggregate() {
    long a1 = write("a", "t");
    write("a", "t");
    long b1 = write("b", "t");

    assertThat(claim("token", 10, 1)).extracting(OutboxMessage::seq).containsExactly(a1, b1);
  }

  @Test
  void runStopsBeforeAMessageNotYetAvailable() {
    long a1 = write("a", "t");
    long a2 = writeDelayed("a", Duration.ofMinutes(1));
    long a3 = write("a", "t");

    List<OutboxMessage> first = claim("token-1", 10, 5);
    assertThat(first).extracting(OutboxMessage::seq).containsExactly(a1);
    assertThat(row(a3).claimToken()).isNull();
    markSent("token-1", first);
    assertThat(claim("token-2", 10, 5)).isEmpty();

    clock().advance(Duration.ofMinutes(1));
    assertThat(claim("token-3", 10, 5)).extracting(OutboxMessage::seq).containsExactly(a2, a3);
  }

  @Test
  void runStopsBeforeAMessageLeasedByAnotherClaim() {
    long a1 = write("a", "t");
    long a2 = write("a", "t");
    long a3 = write("a", "t");
    // A lease on a2 while a1 is pending: what another relay's released run leaves behind.
    assertThat(seqs(claim("other", 10, 2))).containsExactly(a1, a2);
    assertThat(store().release("other", List.of(a1))).isEqualTo(1);

    assertThat(claim("token", 10, 5)).extracting(OutboxMessage::seq).containsExactly(a1);
    assertThat(row(a3).claimToken()).isNull();
    assertThat(row(a3).attempts()).isZero();
  }

  @Test
  void runStopsBeforeAMessageOfATopicNotClaimed() {
    long a1 = write("a", "t");
    long a2 = write("a", "other");
    long a3 = write("a", "t");

    List<OutboxMessage> first = claim("token-1", 10, 5);
    assertThat(first).extracting(OutboxMessage::seq).containsExactly(a1);
    store().release("token-1", List.of(a1));

    assertThat(claim(Set.of("t", "other"), 10, 5, "token-2"))
        .extracting(OutboxMessage::seq)
        .containsExactly(a1, a2, a3);
  }

  @Test
  void deadMessageInTheMiddleIsPassedOverAsItDoesNotHoldItsAggregateBack() {
    long a1 = write("a", "t");
    long a2 = write("a", "t");
    long a3 = write("a", "t");
    // a2 is dead-lettered while a1 is pending again: a run of both, a1 given back, a2 dead.
    assertThat(seqs(claim("token-0", 10, 2))).containsExactly(a1, a2);
    assertThat(store().release("token-0", List.of(a1))).isEqualTo(1);
    assertThat(store().deadLetter("token-0", a2, "poison", now())).isTrue();

    // Dead is not pending: as a dead oldest message lets the next one go, a dead one in the middle
    // of a run lets the run go on.
    assertThat(claim("token-1", 10, 5)).extracting(OutboxMessage::seq).containsExactly(a1, a3);
  }

  @Test
  void maxRunBelowOneIsRefused() {
    assertThatThrownBy(() -> claim("token", 10, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxRun must be at least 1, was 0");
  }

  // ---------------------------------------------------------------- helpers

  private List<OutboxMessage> claim(String token, int limit, int maxRun) {
    return claim(TOPICS, limit, maxRun, token);
  }

  private void markSent(String token, List<OutboxMessage> messages) {
    assertThat(store().markSent(token, seqs(messages), now())).isEqualTo(messages.size());
  }
}
