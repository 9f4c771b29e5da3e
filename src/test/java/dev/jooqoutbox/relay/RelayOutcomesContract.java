package dev.jooqoutbox.relay;

import static dev.jooqoutbox.relay.RelayLeaseAndShutdownContract.counter;
import static org.assertj.core.api.Assertions.assertThat;

import dev.jooqoutbox.MessageStatus;
import dev.jooqoutbox.OutboxAdmin;
import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.UnknownOutcome;
import dev.jooqoutbox.testing.MessageRow;
import dev.jooqoutbox.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The handler outcomes beyond "return = sent, throw = retry": outcome unknown (held, never retried,
 * blocking only its aggregate), permanent failure (dead at once), reschedule (not a failure), the
 * retry policy per topic, and a relay killed between a handler's unknown and its settle.
 */
abstract class RelayOutcomesContract extends RelayContractSupport {

  RelayOutcomesContract(TestDatabase.Kind kind) {
    super(kind);
  }

  /** Drains {@code rounds} times, a day apart: any backoff or lease has run out in between. */
  void drainOverDays(OutboxRelay relay, int rounds) {
    for (int i = 0; i < rounds; i++) {
      relay.drainOnce(100);
      clock.advance(Duration.ofDays(1));
    }
  }

  @Test
  void anUnknownOutcomeIsHeldNeverRetriedAndBlocksOnlyItsAggregate() {
    String charge = write("card-1", "payments", Map.of("n", 1));
    String after = write("card-1", "payments", Map.of("n", 2));
    String other = write("card-2", "payments", Map.of("n", 3));
    List<String> delivered = new CopyOnWriteArrayList<>();
    OutboxRelay relay =
        relayOf(
            "payments",
            m -> {
              delivered.add(m.id());
              if (m.id().equals(charge)) {
                throw new OutcomeUnknownException("timed out after sending", "ch_42", null);
              }
            });

    drainOverDays(relay, 5);

    assertThat(delivered).containsExactlyInAnyOrder(charge, other);
    MessageRow held = row(charge);
    assertThat(held.getOutcomeUnknownAt()).isEqualTo(START);
    assertThat(held.getRemoteRef()).isEqualTo("ch_42");
    assertThat(held.isSent()).isFalse();
    assertThat(held.getDeadAt()).isNull();
    assertThat(held.getAttempts()).isEqualTo(1);
    assertThat(held.getLastError()).contains("OutcomeUnknownException: timed out after sending");
    assertThat(row(after).getAttempts()).as("blocked behind the unknown one").isZero();
    assertThat(row(other).isSent()).isTrue();

    OutboxAdmin admin = OutboxAdmin.create(dsl, clock);
    assertThat(admin.message(charge).orElseThrow().status())
        .isEqualTo(MessageStatus.OUTCOME_UNKNOWN);
    assertThat(admin.message(charge).orElseThrow().remoteRef()).isEqualTo("ch_42");
    assertThat(admin.stats().unknown()).isEqualTo(1);
    assertThat(admin.statsByTopic().get("payments").unknown()).isEqualTo(1);
    assertThat(admin.unknownCount()).isEqualTo(1);
    assertThat(admin.unknownOutcomes(10))
        .extracting(UnknownOutcome::id, UnknownOutcome::remoteRef, UnknownOutcome::since)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(charge, "ch_42", START));
  }

  @Test
  void anAsyncStageFailingWithOutcomeUnknownIsHeldToo() {
    String id = write("card-1", "payments", Map.of("n", 1));
    OutboxRelay relay =
        closeLater(
            relay()
                .asyncHandler(
                    "payments",
                    m ->
                        CompletableFuture.supplyAsync(
                            () -> {
                              throw new java.util.concurrent.CompletionException(
                                  new OutcomeUnknownException("no answer", "r-7", null));
                            }))
                .build());

    drainOverDays(relay, 3);

    assertThat(row(id).getOutcomeUnknownAt()).isNotNull();
    assertThat(row(id).getRemoteRef()).isEqualTo("r-7");
    assertThat(row(id).getAttempts()).isEqualTo(1);
  }

  @Test
  void aPermanentFailureDeadLettersAtOnceWithItsReasonAndUnblocksTheAggregate() {
    String refused = write("card-1", "payments", Map.of("n", 1));
    String next = write("card-1", "payments", Map.of("n", 2));
    OutboxRelay relay =
        closeLater(
            meteredRelay()
                .maxAttempts(10)
                .handler(
                    "payments",
                    m -> {
                      if (m.id().equals(refused)) {
                        throw new PermanentFailureException("card refused for good");
                      }
                    })
                .build());

    relay.drainOnce(100);
    MessageRow dead = row(refused);
    assertThat(dead.getDeadAt()).isEqualTo(START);
    assertThat(dead.getAttempts()).isEqualTo(1);
    assertThat(dead.getLastError())
        .startsWith("permanent failure: ")
        .contains("card refused for good");
    assertThat(counter(registry, "dead", "payments")).isEqualTo(1);
    assertThat(counter(registry, "failed", "payments")).isZero();

    relay.drainOnce(100); // the dead one no longer blocks its aggregate
    assertThat(row(next).isSent()).isTrue();
  }

  @Test
  void aRescheduleWaitsForItsTimeAndIsNotCountedAsAFailure() {
    String id = write("acct-1", "rates", Map.of("n", 1));
    List<Integer> attempts = new CopyOnWriteArrayList<>();
    OutboxRelay relay =
        closeLater(
            meteredRelay()
                .maxAttempts(1) // three reschedules would use up 3 attempts if they counted
                .handler(
                    "rates",
                    m -> {
                      attempts.add(m.attempt());
                      if (attempts.size() <= 3) {
                        throw RescheduleException.after(Duration.ofSeconds(30));
                      }
                    })
                .build());

    for (int round = 1; round <= 3; round++) {
      assertThat(relay.drainOnce(100)).isEqualTo(1);
      MessageRow r = row(id);
      assertThat(r.getAvailableAt()).isEqualTo(clock.instant().plusSeconds(30));
      assertThat(r.getAttempts()).as("the attempt is given back").isZero();
      assertThat(r.getLastError()).isNull();
      clock.advance(Duration.ofSeconds(29));
      assertThat(relay.drainOnce(100)).as("not before its time").isZero();
      clock.advance(Duration.ofSeconds(1));
    }
    assertThat(relay.drainOnce(100)).isEqualTo(1);

    assertThat(attempts).containsExactly(1, 1, 1, 1);
    assertThat(row(id).isSent()).isTrue();
    assertThat(row(id).getDeadAt()).isNull();
    assertThat(counter(registry, "rescheduled", "rates")).isEqualTo(3);
    assertThat(counter(registry, "failed", "rates")).isZero();
    assertThat(counter(registry, "dead", "rates")).isZero();
    assertThat(counter(registry, "sent", "rates")).isEqualTo(1);
  }

  @Test
  void aRescheduleAtAGivenInstantUsesIt() {
    String id = write("acct-1", "rates", Map.of("n", 1));
    var at = START.plus(Duration.ofHours(2));
    OutboxRelay relay =
        relayOf(
            "rates",
            m -> {
              if (clock.instant().isBefore(at)) {
                throw RescheduleException.at(at);
              }
            });
    relay.drainOnce(100);
    assertThat(row(id).getAvailableAt()).isEqualTo(at);
    clock.set(at);
    relay.drainOnce(100);
    row(id).assertSentAt(at);
  }

  @Test
  void eachTopicRetriesByItsOwnPolicyAndTheOthersByTheDefaults() {
    String fragile = write("a", "fragile", Map.of("n", 1));
    String sturdy = write("b", "sturdy", Map.of("n", 2));
    OutboxRelay relay =
        closeLater(
            relay()
                .maxAttempts(5)
                .backoff(Duration.ofMinutes(1), Duration.ofMinutes(1))
                .retryPolicy(
                    "fragile", new RetryPolicy(2, Duration.ofSeconds(2), Duration.ofSeconds(2)))
                .handler("fragile", m -> fail())
                .handler("sturdy", m -> fail())
                .build());

    relay.drainOnce(100);
    // Backoff with equal jitter: between half and all of each topic's wait.
    assertThat(row(fragile).getAvailableAt()).isBetween(START.plusSeconds(1), START.plusSeconds(2));
    assertThat(row(sturdy).getAvailableAt())
        .isBetween(START.plusSeconds(30), START.plusSeconds(60));

    drainOverDays(relay, 8);

    assertThat(row(fragile).getDeadAt()).isNotNull();
    assertThat(row(fragile).getAttempts()).isEqualTo(2);
    assertThat(row(sturdy).getDeadAt()).isNotNull();
    assertThat(row(sturdy).getAttempts()).isEqualTo(5);
  }

  private static void fail() {
    throw new IllegalStateException("down");
  }

  /**
   * A relay killed after its handler reported the outcome unknown and before the settle recorded
   * it: the unknown was never stored, so the message is still leased to the dead relay and is
   * delivered again once that lease runs out, as a new attempt (documented in guarantees.md). The
   * dead relay is its claim, left unsettled; the next relay is a real one.
   */
  @Test
  void aRelayKilledBetweenTheUnknownAndItsSettleLeavesTheMessageToBeDeliveredAgain() {
    // A row, claimed by the repository itself (EventLogContract has the event log's crashes).
    String id = writeRow("card-1", "payments", Map.of("n", 1));
    List<OutboxMessage> killed =
        repository.claim(Set.of("payments"), 10, Duration.ofSeconds(30), "killed", START);
    assertThat(killed).extracting(OutboxMessage::id).containsExactly(id);
    List<Integer> attempts = new CopyOnWriteArrayList<>();
    OutboxRelay next =
        closeLater(relay().handler("payments", m -> attempts.add(m.attempt())).build());

    clock.advance(Duration.ofSeconds(29));
    assertThat(next.drainOnce(100)).as("while the killed relay's lease holds").isZero();
    assertThat(row(id).getOutcomeUnknownAt()).isNull();

    clock.advance(Duration.ofSeconds(1));
    assertThat(next.drainOnce(100)).isEqualTo(1);
    assertThat(attempts).containsExactly(2);
    assertThat(row(id).isSent()).isTrue();
  }
}
