package dev.jooqoutbox.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.jooqoutbox.OutboxAdmin;
import dev.jooqoutbox.testing.ManualTimers;
import dev.jooqoutbox.testing.MutableClock;
import dev.jooqoutbox.testing.TestDatabase;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * A topic paused by an operator ({@link OutboxAdmin#pause}): no relay of the outbox claims it once
 * it has read the pause (at its start, then once a poll interval), its pending message holds its
 * aggregate back, and once resumed every relay claims it again, in each aggregate's order. Two
 * relays each time.
 */
abstract class RelayPausedTopicContract extends RelayContractSupport {

  private static final Duration POLL = Duration.ofSeconds(1);

  RelayPausedTopicContract(TestDatabase.Kind kind) {
    super(kind);
  }

  @Test
  void aPausedTopicIsClaimedByNoRelayAndHoldsItsAggregateBackUntilResumed() {
    OutboxAdmin admin = OutboxAdmin.create(dsl, clock);
    assertThat(admin.pause("invoices")).isTrue();
    String a1 = write("a", "orders", Map.of("n", 1));
    String a2 = write("a", "invoices", Map.of("n", 2));
    String a3 = write("a", "orders", Map.of("n", 3));
    String b1 = write("b", "orders", Map.of("n", 4));
    String c1 = write("c", "invoices", Map.of("n", 5));
    List<String> delivered = new CopyOnWriteArrayList<>();
    // Each relay reads the pauses when it first claims, then when the test moves its time a poll.
    ManualTimers timersA = new ManualTimers(new MutableClock(clock.instant()));
    ManualTimers timersB = new ManualTimers(new MutableClock(clock.instant()));
    OutboxRelay relayA = twoTopics(timersA, delivered);
    OutboxRelay relayB = twoTopics(timersB, delivered);

    assertThat(relayA.drainOnce(100)).isEqualTo(2);
    assertThat(relayB.drainOnce(100)).isZero();
    assertThat(delivered).containsExactly(a1, b1);
    for (String held : List.of(a2, a3, c1)) {
      assertThat(row(held).getAttempts()).as("never claimed: " + held).isZero();
      assertThat(row(held).isSent()).isFalse();
    }

    assertThat(admin.resume("invoices")).isTrue();
    timersA.advance(POLL);
    timersB.advance(POLL);
    assertThat(relayB.drainOnce(100) + relayA.drainOnce(100)).isEqualTo(3);

    assertThat(delivered).containsExactlyInAnyOrder(a1, b1, a2, a3, c1);
    assertThat(delivered.stream().filter(List.of(a1, a2, a3)::contains))
        .as("aggregate a in its order")
        .containsExactly(a1, a2, a3);
  }

  @Test
  void runningRelaysStopClaimingATopicPausedWhileTheyRunAndClaimItAgainOnceResumed() {
    OutboxAdmin admin = OutboxAdmin.create(dsl, clock);
    List<String> delivered = new CopyOnWriteArrayList<>();
    SimpleMeterRegistry metersA = new SimpleMeterRegistry();
    SimpleMeterRegistry metersB = new SimpleMeterRegistry();
    started(metersA, delivered);
    started(metersB, delivered);
    String before = write("x", "invoices", Map.of("n", 0));
    await().atMost(Duration.ofSeconds(10)).until(() -> delivered.contains(before));

    admin.pause("invoices");
    // Each relay has read the pause, and a claim that began before it read it has ended.
    awaitPausedAndClaimedTwiceSince(metersA);
    awaitPausedAndClaimedTwiceSince(metersB);
    String paused = write("x", "invoices", Map.of("n", 1));
    String behind = write("x", "orders", Map.of("n", 2));
    String other = write("y", "orders", Map.of("n", 3));
    await().atMost(Duration.ofSeconds(10)).until(() -> delivered.contains(other));
    awaitClaims(metersA, 2);
    awaitClaims(metersB, 2);
    assertThat(delivered).doesNotContain(paused, behind);
    assertThat(row(paused).getAttempts()).isZero();

    admin.resume("invoices");
    await().atMost(Duration.ofSeconds(10)).until(() -> delivered.contains(behind));
    assertThat(delivered).containsExactly(before, other, paused, behind);
    // A gauge holds what it reads weakly unless told otherwise: still read after a collection.
    System.gc();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> metersA.get("outbox.relay.paused.topics").gauge().value() == 0.0);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> metersB.get("outbox.relay.in.flight").gauge().value() == 0.0);
  }

  private OutboxRelay twoTopics(ManualTimers timers, List<String> delivered) {
    return closeLater(
        relay()
            .timers(timers)
            .pollInterval(POLL)
            .handler("orders", m -> delivered.add(m.id()))
            .handler("invoices", m -> delivered.add(m.id()))
            .build());
  }

  private void started(SimpleMeterRegistry meters, List<String> delivered) {
    closeLater(
            relay()
                .meterRegistry(meters)
                .handler("orders", m -> delivered.add(m.id()))
                .handler("invoices", m -> delivered.add(m.id()))
                .build())
        .start();
  }

  private static void awaitPausedAndClaimedTwiceSince(SimpleMeterRegistry meters) {
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> meters.get("outbox.relay.paused.topics").gauge().value() == 1.0);
    awaitClaims(meters, 2);
  }

  /** Waits until the relay of {@code meters} ended {@code more} claims from now on. */
  private static void awaitClaims(SimpleMeterRegistry meters, int more) {
    long now = meters.get("outbox.relay.claim").timer().count();
    BooleanSupplier done = () -> meters.get("outbox.relay.claim").timer().count() >= now + more;
    await().atMost(Duration.ofSeconds(10)).until(done::getAsBoolean);
  }
}
