package dev.jooqoutbox.internal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.jooqoutbox.OutboxMessage;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Closing the relay waits for what is in flight: it is woken by the settle that leaves nothing in
 * flight, not by a poll, and gives up at its deadline.
 */
class InFlightTest {

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final Instant LEASE_END = Instant.parse("2026-12-06T12:00:00Z");

  @Test
  void awaitEmptyReturnsOnceTheLastMessageInFlightIsSettled() throws Exception {
    InFlight inFlight = new InFlight(10);
    inFlight.claimed("t1", List.of(message(1, "a"), message(2, "b")), LEASE_END);
    long farDeadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);

    CompletableFuture<Void> closed =
        CompletableFuture.runAsync(() -> awaitEmpty(inFlight, farDeadline));
    inFlight.settled("t1", List.of(1L));
    assertThat(inFlight.size()).isOne();
    assertThat(closed).isNotDone();

    inFlight.settled("t1", List.of(2L));
    // Woken by the settle: long before the deadline of five minutes.
    closed.get(30, TimeUnit.SECONDS);
    assertThat(inFlight.size()).isZero();
  }

  @Test
  void awaitEmptyGivesUpAtItsDeadlineWithMessagesStillInFlight() throws Exception {
    InFlight inFlight = new InFlight(10);
    inFlight.claimed("t1", List.of(message(1, "a")), LEASE_END);

    inFlight.awaitEmpty(System.nanoTime() + Duration.ofMillis(20).toNanos());

    assertThat(inFlight.size()).isOne();
    assertThat(inFlight.leaseEnd("t1")).isEqualTo(LEASE_END);
  }

  @Test
  void awaitEmptyReturnsAtOnceWhenNothingIsInFlight() throws Exception {
    InFlight inFlight = new InFlight(10);
    inFlight.claimed("t1", List.of(message(1, "a")), LEASE_END);
    inFlight.settled("t1", List.of(1L));

    inFlight.awaitEmpty(System.nanoTime() + TimeUnit.MINUTES.toNanos(5));

    assertThat(inFlight.size()).isZero();
  }

  private static void awaitEmpty(InFlight inFlight, long deadlineNanos) {
    try {
      inFlight.awaitEmpty(deadlineNanos);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static OutboxMessage message(long seq, String aggregate) {
    return new OutboxMessage(
        seq, "id-" + seq, aggregate, "orders", "{}", Map.of(), 1, LEASE_END, MAPPER);
  }
}
