package dev.jooqoutbox.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jooqoutbox.DeadLetter;
import dev.jooqoutbox.DeadLetterQuery;
import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.testing.MessageRow;
import dev.jooqoutbox.testing.TestDatabase;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Failures: retries wait out their backoff (time moves on the {@link
 * dev.jooqoutbox.testing.MutableClock}, nothing sleeps), the last attempt dead-letters with a
 * bounded error that holds no payload, a requeue delivers again, and a failing message holds back
 * its own aggregate only.
 */
abstract class RelayRetryContract extends RelayContractSupport {

  private static final String SECRET = "SECRET-4111-1111-1111-1111";

  RelayRetryContract(TestDatabase.Kind kind) {
    super(kind);
  }

  @Test
  void failedAttemptsWaitForTheirBackoffThenSucceed() {
    String id = write("order-1", "orders", Map.of("n", 1));
    List<Integer> attempts = new CopyOnWriteArrayList<>();
    OutboxRelay relay =
        closeLater(
            relay()
                .maxAttempts(5)
                .backoff(Duration.ofSeconds(10), Duration.ofMinutes(1))
                .handler(
                    "orders",
                    m -> {
                      attempts.add(m.attempt());
                      if (m.attempt() <= 2) {
                        throw new IllegalStateException("downstream unavailable");
                      }
                    })
                .build());

    // Attempt 1 fails: the retry waits 10 s with equal jitter, so between 5 s and 10 s.
    assertThat(relay.drainOnce(100)).isEqualTo(1);
    MessageRow afterFirst = row(id);
    assertThat(afterFirst.getAttempts()).isEqualTo(1);
    assertThat(afterFirst.isSent()).isFalse();
    assertThat(afterFirst.getDeadAt()).isNull();
    assertThat(afterFirst.getClaimToken()).isNull();
    assertThat(afterFirst.getLastError())
        .isEqualTo("java.lang.IllegalStateException: downstream unavailable");
    Instant firstRetry = afterFirst.getAvailableAt();
    assertThat(firstRetry).isBetween(START.plusSeconds(5), START.plusSeconds(10));

    assertThat(relay.drainOnce(100)).isZero();
    clock.set(firstRetry.minusMillis(1));
    assertThat(relay.drainOnce(100)).isZero();
    assertThat(attempts).containsExactly(1);

    // Attempt 2 fails: the wait doubles to 20 s, so between 10 s and 20 s.
    clock.set(firstRetry);
    assertThat(relay.drainOnce(100)).isEqualTo(1);
    Instant secondRetry = row(id).getAvailableAt();
    assertThat(secondRetry).isBetween(firstRetry.plusSeconds(10), firstRetry.plusSeconds(20));
    clock.set(secondRetry.minusMillis(1));
    assertThat(relay.drainOnce(100)).isZero();
    assertThat(attempts).containsExactly(1, 2);

    clock.set(secondRetry);
    assertThat(relay.drainOnce(100)).isEqualTo(1);
    assertThat(attempts).containsExactly(1, 2, 3);
    MessageRow sent = row(id);
    sent.assertSentAt(secondRetry);
    assertThat(sent.getAttempts()).isEqualTo(3);
    assertThat(sent.getLastError()).isNull();
    assertThat(sent.getDeadAt()).isNull();
  }

  @Test
  void lastFailedAttemptDeadLettersWithABoundedErrorWithoutThePayload() {
    String id = write("card-1", "payments", Map.of("card", SECRET, "amount", 12));
    List<Integer> attempts = new CopyOnWriteArrayList<>();
    OutboxRelay relay =
        retryingRelay(
            3,
            "payments",
            m -> {
              attempts.add(m.attempt());
              throw new IllegalStateException(
                  "gateway refused: " + "x".repeat(10_000), new IOException("connection reset"));
            });

    for (int attempt = 1; attempt <= 3; attempt++) {
      assertThat(relay.drainOnce(100)).isEqualTo(1);
      clock.advance(Duration.ofSeconds(1));
    }
    assertThat(relay.drainOnce(100)).isZero();
    clock.advance(Duration.ofDays(1));
    assertThat(relay.drainOnce(100)).isZero();

    assertThat(attempts).containsExactly(1, 2, 3);
    MessageRow dead = row(id);
    assertThat(dead.getDeadAt()).isEqualTo(START.plusSeconds(2));
    assertThat(dead.isSent()).isFalse();
    assertThat(dead.getAttempts()).isEqualTo(3);
    assertThat(dead.getClaimToken()).isNull();
    assertThat(dead.getLastError())
        .startsWith("java.lang.IllegalStateException: gateway refused: xxx")
        .hasSizeLessThanOrEqualTo(2000)
        .doesNotContain(SECRET);
    List<DeadLetter> deadLetters =
        repository.deadLetters(DeadLetterQuery.all().limit(10)).letters();
    assertThat(deadLetters).extracting(DeadLetter::id).containsExactly(id);
    assertThat(deadLetters.get(0).lastError()).isEqualTo(dead.getLastError());
  }

  @Test
  void storedErrorNamesTheCauseChainAndNeverThePayload() {
    String id = write("card-1", "payments", Map.of("card", SECRET));
    OutboxRelay relay =
        closeLater(
            relay()
                .maxAttempts(1)
                .handler(
                    "payments",
                    m -> {
                      throw new IllegalStateException(
                          "charge failed", new IOException("connection reset"));
                    })
                .build());

    assertThat(relay.drainOnce(100)).isEqualTo(1);

    assertThat(row(id).getLastError())
        .isEqualTo(
            "java.lang.IllegalStateException: charge failed; caused by java.io.IOException:"
                + " connection reset");
  }

  @Test
  void requeuedDeadLetterIsDeliveredAgainFromAttemptOne() {
    String id = write("order-1", "orders", Map.of("n", 1));
    AtomicBoolean downstreamBroken = new AtomicBoolean(true);
    List<Integer> attempts = new CopyOnWriteArrayList<>();
    OutboxRelay relay =
        retryingRelay(
            2,
            "orders",
            m -> {
              attempts.add(m.attempt());
              if (downstreamBroken.get()) {
                throw new IllegalStateException("downstream broken");
              }
            });
    assertThat(relay.drainOnce(100)).isEqualTo(1);
    clock.advance(Duration.ofSeconds(1));
    assertThat(relay.drainOnce(100)).isEqualTo(1);
    assertThat(row(id).getDeadAt()).isNotNull();

    downstreamBroken.set(false);
    clock.advance(Duration.ofMinutes(5));
    assertThat(relay.drainOnce(100)).isZero();
    assertThat(repository.requeue(id, clock.instant())).isTrue();
    assertThat(relay.drainOnce(100)).isEqualTo(1);

    assertThat(attempts).containsExactly(1, 2, 1);
    MessageRow sent = row(id);
    sent.assertSentAt(clock.instant());
    assertThat(sent.getDeadAt()).isNull();
    assertThat(sent.getAttempts()).isEqualTo(1);
    assertThat(sent.getLastError()).isNull();
  }

  @Test
  void poisonMessageDoesNotBlockOtherAggregates() {
    String poison = write("poison", "orders", Map.of("n", 0));
    for (int n = 1; n <= 3; n++) {
      write("healthy-a", "orders", Map.of("n", n));
      write("healthy-b", "orders", Map.of("n", n));
    }
    List<OutboxMessage> delivered = new CopyOnWriteArrayList<>();
    OutboxRelay relay =
        retryingRelay(
            100,
            "orders",
            m -> {
              if (m.aggregate().equals("poison")) {
                throw new IllegalStateException("cannot handle this one");
              }
              delivered.add(m);
            });

    for (int round = 0; round < 4; round++) {
      relay.drainOnce(100);
      clock.advance(Duration.ofSeconds(1));
    }

    assertThat(delivered).hasSize(6);
    for (String aggregate : List.of("healthy-a", "healthy-b")) {
      assertThat(delivered)
          .filteredOn(m -> m.aggregate().equals(aggregate))
          .extracting(m -> m.payload().get("n").asInt())
          .containsExactly(1, 2, 3);
    }
    MessageRow stuck = row(poison);
    assertThat(stuck.isSent()).isFalse();
    assertThat(stuck.getDeadAt()).isNull();
    assertThat(stuck.getAttempts()).isEqualTo(4);
  }

  @Test
  void failingMessageHoldsBackItsAggregateUntilItIsSent() {
    String first = write("order-1", "orders", Map.of("n", 1));
    String second = write("order-1", "orders", Map.of("n", 2));
    String other = write("order-2", "orders", Map.of("n", 1));
    List<String> delivered = new CopyOnWriteArrayList<>();
    OutboxRelay relay =
        retryingRelay(
            10,
            "orders",
            m -> {
              delivered.add(m.id() + "#" + m.attempt());
              if (m.id().equals(first) && m.attempt() <= 2) {
                throw new IllegalStateException("not yet");
              }
            });

    assertThat(relay.drainOnce(100)).isEqualTo(2); // first fails, other is sent
    assertThat(relay.drainOnce(100)).isZero(); // second is available but not ready
    clock.advance(Duration.ofSeconds(1));
    assertThat(relay.drainOnce(100)).isEqualTo(1); // first fails again
    assertThat(row(second).getAttempts()).isZero();
    clock.advance(Duration.ofSeconds(1));
    assertThat(relay.drainOnce(100)).isEqualTo(2); // first is sent, which makes second ready

    assertThat(delivered)
        .containsExactly(first + "#1", other + "#1", first + "#2", first + "#3", second + "#1");
  }

  @Test
  void failingMessageHoldsBackItsAggregateUntilItIsDead() {
    String first = write("order-1", "orders", Map.of("n", 1));
    String second = write("order-1", "orders", Map.of("n", 2));
    List<String> delivered = new CopyOnWriteArrayList<>();
    OutboxRelay relay =
        retryingRelay(
            2,
            "orders",
            m -> {
              delivered.add(m.id() + "#" + m.attempt());
              if (m.id().equals(first)) {
                throw new IllegalStateException("never");
              }
            });

    assertThat(relay.drainOnce(100)).isEqualTo(1);
    assertThat(relay.drainOnce(100)).isZero();
    clock.advance(Duration.ofSeconds(1));
    assertThat(relay.drainOnce(100)).isEqualTo(2); // last attempt: dead, which makes second ready
    assertThat(row(first).getDeadAt()).isEqualTo(clock.instant());

    assertThat(delivered).containsExactly(first + "#1", first + "#2", second + "#1");
    row(second).assertSentAt(clock.instant());
  }

  @Test
  void attemptsUsedUpByCrashedClaimsDeadLetterWithoutRunningTheHandler() {
    Duration lease = Duration.ofSeconds(30);
    // Rows, claimed by the repository itself (EventLogContract has the event log's crashes).
    String exhausted = writeRow("order-1", "orders", Map.of("n", 1));
    String lastChance = writeRow("order-2", "orders", Map.of("n", 1));
    Set<String> topics = Set.of("orders");
    // Relays that claimed and then died: their leases run out, each claim counted an attempt.
    assertThat(repository.claim(topics, 10, lease, "crashed-1", clock.instant())).hasSize(2);
    clock.advance(lease);
    assertThat(repository.claim(topics, 10, lease, "crashed-2", clock.instant())).hasSize(2);
    clock.advance(lease);
    assertThat(repository.claim(topics, 1, lease, "crashed-3", clock.instant()))
        .extracting(OutboxMessage::id)
        .containsExactly(exhausted);
    clock.advance(lease);
    assertThat(row(exhausted).getAttempts()).isEqualTo(3);
    assertThat(row(lastChance).getAttempts()).isEqualTo(2);

    List<OutboxMessage> ran = new CopyOnWriteArrayList<>();
    OutboxRelay relay =
        closeLater(relay().maxAttempts(3).lease(lease).handler("orders", ran::add).build());
    assertThat(relay.drainOnce(100)).isEqualTo(2);

    assertThat(ran).extracting(OutboxMessage::id).containsExactly(lastChance);
    assertThat(ran.get(0).attempt()).isEqualTo(3);
    row(lastChance).assertSentAt(clock.instant());
    MessageRow dead = row(exhausted);
    assertThat(dead.getDeadAt()).isEqualTo(clock.instant());
    assertThat(dead.getAttempts()).isEqualTo(3);
    assertThat(dead.getClaimToken()).isNull();
    assertThat(dead.getLastError()).contains("attempts used up").contains("max 3");
  }
}
