package dev.jooqoutbox.relay;

import static dev.jooqoutbox.schema.Tables.INBOX_MESSAGE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.jooqoutbox.Inbox;
import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.testing.MessageRow;
import dev.jooqoutbox.testing.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * End to end: what a transaction commits reaches its handler, in order per aggregate, whether the
 * application drains or the relay runs its own worker; what it rolls back never does. Also the
 * handler's view of the relay: {@link OutboxRelay#currentMessage()} and handler concurrency.
 */
abstract class RelayDeliveryContract extends RelayContractSupport {

  RelayDeliveryContract(TestDatabase.Kind kind) {
    super(kind);
  }

  @Test
  void drainOnceDeliversCommittedMessagesInOrderPerAggregate() {
    String[] ids = new String[3];
    dsl.transaction(
        tx -> {
          ids[0] = outbox.write(tx.dsl(), "order-1", "orders", Map.of("n", 1));
          ids[1] =
              outbox.message("order-1", "orders", Map.of("n", 2)).header("h", "v").write(tx.dsl());
          ids[2] = outbox.write(tx.dsl(), "order-2", "orders", Map.of("n", 3));
        });
    List<OutboxMessage> seen = new CopyOnWriteArrayList<>();
    OutboxRelay relay = closeLater(relay().handler("orders", seen::add).build());

    // A batch holds only the oldest pending message of each aggregate; settling it makes the next
    // one ready, and drainOnce claims again until a claim finds nothing.
    assertThat(relay.drainOnce(100)).isEqualTo(3);
    assertThat(relay.drainOnce(100)).isZero();

    assertThat(seen).extracting(OutboxMessage::id).containsExactly(ids[0], ids[2], ids[1]);
    assertThat(seen).extracting(m -> m.payload().get("n").asInt()).containsExactly(1, 3, 2);
    assertThat(seen).extracting(OutboxMessage::attempt).containsOnly(1);
    assertThat(seen.get(2).headers()).isEqualTo(Map.of("h", "v"));
    assertThat(seen.get(2).aggregate()).isEqualTo("order-1");
    assertThat(seen.get(2).topic()).isEqualTo("orders");
    for (String id : ids) {
      MessageRow row = row(id);
      row.assertSentAt(clock.instant());
      assertThat(row.getAttempts()).isEqualTo(1);
      assertThat(row.getClaimToken()).isNull();
      assertThat(row.getLockedUntil()).isNull();
    }
  }

  @Test
  void drainOnceStopsAtMax() {
    for (int i = 0; i < 5; i++) {
      write("agg-" + i, "orders", Map.of("n", i));
    }
    List<OutboxMessage> seen = new CopyOnWriteArrayList<>();
    OutboxRelay relay = closeLater(relay().batchSize(2).handler("orders", seen::add).build());

    assertThat(relay.drainOnce(3)).isEqualTo(3);
    assertThat(seen).hasSize(3);
    assertThat(relay.drainOnce(100)).isEqualTo(2);
    assertThat(seen).extracting(m -> m.payload().get("n").asInt()).containsExactly(0, 1, 2, 3, 4);
  }

  @Test
  void onlyTopicsWithAHandlerAreClaimed() {
    String mine = write("a", "orders", Map.of());
    String theirs = write("b", "invoices", Map.of());
    List<OutboxMessage> seen = new CopyOnWriteArrayList<>();
    OutboxRelay relay = closeLater(relay().handler("orders", seen::add).build());

    assertThat(relay.topics()).containsExactly("orders");
    assertThat(relay.drainOnce(100)).isEqualTo(1);
    assertThat(seen).extracting(OutboxMessage::id).containsExactly(mine);
    MessageRow untouched = row(theirs);
    assertThat(untouched.getAttempts()).isZero();
    assertThat(untouched.isSent()).isFalse();
  }

  @Test
  void rolledBackWriteIsNeverDelivered() {
    assertThatThrownBy(
            () ->
                dsl.transaction(
                    tx -> {
                      outbox.write(tx.dsl(), "order-1", "orders", Map.of("n", "rolled back"));
                      throw new IllegalStateException("the business step failed");
                    }))
        .isInstanceOf(IllegalStateException.class);
    String committed = write("order-1", "orders", Map.of("n", "committed"));
    List<OutboxMessage> seen = new CopyOnWriteArrayList<>();
    OutboxRelay relay = closeLater(relay().handler("orders", seen::add).build());

    assertThat(relay.drainOnce(100)).isEqualTo(1);
    assertThat(relay.drainOnce(100)).isZero();

    assertThat(seen).extracting(OutboxMessage::id).containsExactly(committed);
    assertThat(stored().count()).isEqualTo(1);
  }

  @Test
  void startedRelayDeliversWhatIsCommittedAndNothingRolledBack() {
    List<OutboxMessage> seen = new CopyOnWriteArrayList<>();
    OutboxRelay relay = closeLater(relay().handler("orders", seen::add).build());
    relay.start();

    List<String> committed = new ArrayList<>();
    dsl.transaction(
        tx -> {
          committed.add(outbox.write(tx.dsl(), "order-1", "orders", Map.of("n", 1)));
          committed.add(outbox.write(tx.dsl(), "order-2", "orders", Map.of("n", 2)));
          committed.add(outbox.write(tx.dsl(), "order-1", "orders", Map.of("n", 3)));
        });
    assertThatThrownBy(
            () ->
                dsl.transaction(
                    tx -> {
                      outbox.write(tx.dsl(), "order-3", "orders", Map.of("n", 99));
                      throw new IllegalStateException("the business step failed");
                    }))
        .isInstanceOf(IllegalStateException.class);
    // Written after the rolled-back one: once it is delivered, the rolled-back one had its chance.
    committed.add(write("order-3", "orders", Map.of("n", 4)));

    await().atMost(Duration.ofSeconds(10)).until(() -> stored().notSent() == 0);
    assertThat(seen)
        .extracting(OutboxMessage::id)
        .containsExactlyInAnyOrderElementsOf(committed)
        .doesNotHaveDuplicates();
    assertThat(seen)
        .filteredOn(m -> m.aggregate().equals("order-1"))
        .extracting(m -> m.payload().get("n").asInt())
        .containsExactly(1, 3);
    assertThat(stored().sent()).isEqualTo(4);
  }

  @Test
  void aRelayStartsOnce() {
    OutboxRelay relay = closeLater(relay().handler("orders", m -> {}).build());
    relay.start();
    assertThatThrownBy(relay::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("starts once");
  }

  @Test
  void currentMessageIsTheHandledMessageInsideItsHandlerAndEmptyOutside() {
    write("a", "orders", Map.of("n", 1));
    write("b", "orders", Map.of("n", 2));
    write("a", "orders", Map.of("n", 3));
    Map<String, Optional<OutboxMessage>> inside = new ConcurrentHashMap<>();
    List<OutboxMessage> seen = new CopyOnWriteArrayList<>();
    Inbox inbox = new Inbox(clock);
    OutboxRelay relay =
        relayOf(
            "orders",
            m -> {
              seen.add(m);
              inside.put(m.id(), OutboxRelay.currentMessage());
              // Code the handler calls finds the message without being passed it.
              recordInInbox(inbox);
            });
    assertThat(OutboxRelay.currentMessage()).isEmpty();

    assertThat(relay.drainOnce(100)).isEqualTo(3);

    assertThat(seen).hasSize(3);
    for (OutboxMessage m : seen) {
      assertThat(inside.get(m.id())).containsSame(m);
    }
    assertThat(dsl.fetch(INBOX_MESSAGE).getValues(INBOX_MESSAGE.MESSAGE_ID))
        .containsExactlyInAnyOrderElementsOf(seen.stream().map(OutboxMessage::id).toList());
    assertThat(OutboxRelay.currentMessage()).isEmpty();
  }

  private void recordInInbox(Inbox inbox) {
    String id = OutboxRelay.currentMessage().orElseThrow().id();
    dsl.transaction(tx -> assertThat(inbox.seen(tx.dsl(), "billing", id)).isFalse());
  }

  @Test
  void handlersOfDifferentAggregatesRunConcurrentlyButOneAggregateNeverTwiceAtOnce() {
    int aggregates = 4;
    for (int n = 0; n < 3; n++) {
      for (int a = 0; a < aggregates; a++) {
        write("agg-" + a, "orders", Map.of("n", n));
      }
    }
    CountDownLatch allRunning = new CountDownLatch(aggregates);
    List<Boolean> metTheOthers = new CopyOnWriteArrayList<>();
    AtomicInteger running = new AtomicInteger();
    AtomicInteger mostRunning = new AtomicInteger();
    Map<String, AtomicInteger> runningPerAggregate = new ConcurrentHashMap<>();
    AtomicInteger mostPerAggregate = new AtomicInteger();
    Map<String, List<Integer>> order = new ConcurrentHashMap<>();
    OutboxRelay relay =
        closeLater(
            relay()
                .handlerConcurrency(aggregates)
                .handler(
                    "orders",
                    m -> {
                      int now = running.incrementAndGet();
                      mostRunning.accumulateAndGet(now, Math::max);
                      int mine =
                          runningPerAggregate
                              .computeIfAbsent(m.aggregate(), k -> new AtomicInteger())
                              .incrementAndGet();
                      mostPerAggregate.accumulateAndGet(mine, Math::max);
                      try {
                        order
                            .computeIfAbsent(m.aggregate(), k -> new CopyOnWriteArrayList<>())
                            .add(m.payload().get("n").asInt());
                        if (allRunning.getCount() > 0) {
                          // Every handler of the first batch waits here until all of them run.
                          allRunning.countDown();
                          metTheOthers.add(allRunning.await(10, TimeUnit.SECONDS));
                        }
                      } finally {
                        runningPerAggregate.get(m.aggregate()).decrementAndGet();
                        running.decrementAndGet();
                      }
                    })
                .build());

    // Three batches of one message per aggregate; the handlers of the first wait for each other.
    assertThat(relay.drainOnce(100)).isEqualTo(3 * aggregates);
    assertThat(metTheOthers).hasSize(aggregates).containsOnly(true);
    assertThat(mostRunning.get()).isEqualTo(aggregates);

    assertThat(mostPerAggregate.get()).isEqualTo(1);
    assertThat(order).hasSize(aggregates);
    order.values().forEach(ns -> assertThat(ns).containsExactly(0, 1, 2));
  }
}
