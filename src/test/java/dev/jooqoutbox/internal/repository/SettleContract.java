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
 * Settling claimed rows, only with the owning token: sent, retry later, give back, dead letter.
 * Said through the store's seam: it runs on the three databases and on the model ({@code
 * ReferenceStore}); dead letters as an operator reads them, requeue, purge and counts are {@link
 * AdminRowsContract}'s.
 */
abstract class SettleContract extends StoreContract {

  private static final Set<String> TOPICS = Set.of("t", "u");

  // ---------------------------------------------------------------- settle with the token

  @Test
  void staleTokenChangesNothing() {
    long seq = write("a", "t");
    claimOne("token-old");
    clock().advance(LEASE);
    claimOne("token-new"); // the old relay's lease ran out; another relay owns the row now
    ModelRow owned = row(seq);
    Instant now = now();

    assertThat(store().markSent("token-old", List.of(seq), now)).isZero();
    assertThat(store().retryLater("token-old", seq, "late", now.plusSeconds(5))).isFalse();
    assertThat(store().deadLetter("token-old", seq, "late", now)).isFalse();
    assertThat(store().deadLetterExhausted("token-old", seq, 1, "late", now)).isFalse();
    assertThat(store().release("token-old", List.of(seq))).isZero();
    assertThat(store().markSent("token-unknown", List.of(seq), now)).isZero();

    assertThat(row(seq)).isEqualTo(owned);
    assertThat(owned.claimToken()).isEqualTo("token-new");
    assertThat(owned.attempts()).isEqualTo(2);

    assertThat(store().markSent("token-new", List.of(seq), now)).isEqualTo(1);
  }

  @Test
  void settledRowCannotBeSettledAgain() {
    long sent = write("a", "t");
    long dead = write("b", "t");
    claimAll("token");
    Instant now = now();
    assertThat(store().markSent("token", List.of(sent), now)).isEqualTo(1);
    assertThat(store().deadLetter("token", dead, "poison", now)).isTrue();
    ModelRow sentRow = row(sent);
    ModelRow deadRow = row(dead);

    clock().advance(Duration.ofSeconds(1));
    now = now();
    for (long seq : List.of(sent, dead)) {
      assertThat(store().markSent("token", List.of(seq), now)).isZero();
      assertThat(store().retryLater("token", seq, "again", now)).isFalse();
      assertThat(store().deadLetter("token", seq, "again", now)).isFalse();
      assertThat(store().deadLetterExhausted("token", seq, 1, "again", now)).isFalse();
      assertThat(store().release("token", List.of(seq))).isZero();
    }
    assertThat(row(sent)).isEqualTo(sentRow);
    assertThat(row(dead)).isEqualTo(deadRow);
  }

  @Test
  void markSentSettlesTheOwnedRowsInOneCall() {
    long a = write("a", "t");
    long b = write("b", "t");
    long c = write("c", "t");
    claim(TOPICS, 2, 1, "token-1");
    claim(TOPICS, 2, 1, "token-2");
    clock().advance(Duration.ofSeconds(1));

    // c belongs to token-2: only a and b are marked.
    assertThat(store().markSent("token-1", List.of(a, b, c), now())).isEqualTo(2);
    assertThat(store().markSent("token-1", List.of(), now())).isZero();

    for (long seq : List.of(a, b)) {
      ModelRow row = row(seq);
      assertThat(row.sentAt()).isEqualTo(now());
      assertThat(row.claimToken()).isNull();
      assertThat(row.lockedUntil()).isNull();
      assertThat(row.attempts()).isEqualTo(1);
    }
    assertThat(row(c).sentAt()).isNull();
    assertThat(row(c).claimToken()).isEqualTo("token-2");
  }

  @Test
  void retryLaterRecordsTheErrorAndWaits() {
    long seq = write("a", "t");
    claimOne("token");
    Instant next = now().plusSeconds(10);

    assertThat(store().retryLater("token", seq, "connection refused", next)).isTrue();

    ModelRow row = row(seq);
    assertThat(row.lastError()).isEqualTo("connection refused");
    assertThat(row.availableAt()).isEqualTo(next);
    assertThat(row.claimToken()).isNull();
    assertThat(row.lockedUntil()).isNull();
    assertThat(row.attempts()).isEqualTo(1);
    assertThat(claimAll("token-early")).isEmpty();

    clock().set(next);
    assertThat(claimAll("token-2")).extracting(OutboxMessage::attempt).containsExactly(2);
    store().markSent("token-2", List.of(seq), now());
    assertThat(row(seq).lastError()).isNull();
  }

  @Test
  void releaseGivesTheAttemptBack() {
    long a = write("a", "t");
    long b = write("b", "t");
    List<OutboxMessage> batch = claimAll("token");
    assertThat(batch).extracting(OutboxMessage::attempt).containsOnly(1);

    assertThat(store().release("token", List.of(a, b))).isEqualTo(2);
    assertThat(store().release("token", List.of())).isZero();

    for (long seq : List.of(a, b)) {
      ModelRow row = row(seq);
      assertThat(row.attempts()).isZero();
      assertThat(row.claimToken()).isNull();
      assertThat(row.lockedUntil()).isNull();
    }
    // Claimable at once, and the claim is again the first attempt.
    List<OutboxMessage> again = claimAll("token-2");
    assertThat(again).extracting(OutboxMessage::seq).containsExactly(a, b);
    assertThat(again).extracting(OutboxMessage::attempt).containsOnly(1);
  }

  @Test
  void deadLetterKeepsTheRowOutOfClaims() {
    long seq = write("a", "t");
    claimOne("token");
    clock().advance(Duration.ofSeconds(2));

    assertThat(store().deadLetter("token", seq, "poison message", now())).isTrue();

    ModelRow row = row(seq);
    assertThat(row.deadAt()).isEqualTo(now());
    assertThat(row.lastError()).isEqualTo("poison message");
    assertThat(row.claimToken()).isNull();
    assertThat(row.lockedUntil()).isNull();
    assertThat(row.sentAt()).isNull();
    clock().advance(Duration.ofDays(1));
    assertThat(claimAll("token-2")).isEmpty();
  }

  @Test
  void exhaustedAttemptsDeadLetterAtMaxAttempts() {
    int maxAttempts = 3;
    long seq = write("a", "t");
    // Three claims whose relays crashed: each lease ran out without a settle.
    for (int attempt = 1; attempt <= maxAttempts; attempt++) {
      assertThat(claimOne("crashed-" + attempt).attempt()).isEqualTo(attempt);
      clock().advance(LEASE);
    }
    OutboxMessage fourth = claimOne("token");
    assertThat(fourth.attempt()).isEqualTo(maxAttempts + 1);

    assertThat(store().deadLetterExhausted("token", seq, maxAttempts, "attempts used up", now()))
        .isTrue();

    ModelRow row = row(seq);
    assertThat(row.attempts()).isEqualTo(maxAttempts);
    assertThat(row.deadAt()).isEqualTo(now());
    assertThat(row.lastError()).isEqualTo("attempts used up");
    assertThat(row.claimToken()).isNull();
  }

  // ---------------------------------------------------------------- helpers

  private List<OutboxMessage> claimAll(String token) {
    return claim(TOPICS, 1000, 1, token);
  }

  private OutboxMessage claimOne(String token) {
    List<OutboxMessage> claimed = claim(TOPICS, 1, 1, token);
    assertThat(claimed).hasSize(1);
    return claimed.get(0);
  }
}
