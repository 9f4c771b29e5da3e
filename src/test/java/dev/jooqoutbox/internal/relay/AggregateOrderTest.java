package dev.jooqoutbox.internal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jooqoutbox.internal.relay.OrderRelay.Kind;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.state.Action;
import net.jqwik.api.state.ActionChain;
import net.jqwik.api.state.ActionChainArbitrary;
import net.jqwik.api.state.Transformer;
import net.jqwik.api.statistics.Statistics;

/**
 * {@link AggregateOrder} under random sequences of claims (each cut in three steps between which
 * anything may happen), handler successes and failures, lanes stopping, outcomes written in any
 * order, backoffs ending and new commits, on the {@link OrderWorld} model: one relay, and two that
 * also crash (losing everything in memory, their leases left to run out) while time moves on. At
 * every claim nothing taken is in flight at another relay; at every handler start the relay holds
 * the row's lease and every older message of the aggregate is delivered; afterwards, with faults
 * gone, every message is delivered within a bounded number of steps (one relay: woken by commits
 * and settles alone), and a message is delivered twice only after a crash.
 */
class AggregateOrderTest {

  @Property(tries = 5000)
  void noMessageStartsBeforeAnOlderOneOfItsAggregateAndEverythingEndsDelivered(
      @ForAll("oneRelay") ActionChain<OrderWorld> chain) {
    OrderWorld world = chain.run();
    world.quiesce(2000);
    Statistics.collect(world.handlerStarts > 20 ? "over 20 handler starts" : "up to 20");
  }

  @Property(tries = 3000)
  void twoRelaysThatCrashKeepEachAggregatesOrderAndDeliverEverything(
      @ForAll("twoRelays") ActionChain<OrderWorld> chain) {
    OrderWorld world = chain.run();
    world.quiesce(4000);
    Statistics.label("crashes").collect(world.crashes() > 0 ? "crashed" : "no crash");
    Statistics.label("delivered twice").collect(world.duplicates() > 0 ? "some" : "none");
  }

  @Provide
  Arbitrary<ActionChain<OrderWorld>> oneRelay() {
    return withRelayActions(ActionChain.<OrderWorld>startWith(() -> new OrderWorld(8, 1)))
        .withMaxTransformations(80);
  }

  @Provide
  Arbitrary<ActionChain<OrderWorld>> twoRelays() {
    return withRelayActions(ActionChain.<OrderWorld>startWith(() -> new OrderWorld(10, 2)))
        .withAction(1, step("crash", index(), OrderSimulation.STEPS.get("crash")))
        .withAction(2, step("tick", index(), OrderSimulation.STEPS.get("tick")))
        .withMaxTransformations(120);
  }

  private static ActionChainArbitrary<OrderWorld> withRelayActions(
      ActionChainArbitrary<OrderWorld> chain) {
    for (Map.Entry<String, OrderSimulation.Step> e : OrderSimulation.RELAY_STEPS.entrySet()) {
      chain =
          chain.withAction(
              OrderSimulation.WEIGHTS.get(e.getKey()), step(e.getKey(), index(), e.getValue()));
    }
    return chain;
  }

  /** Runs the steps of a chain as jqwik prints them: see {@link OrderSimulation#replay}. */
  static OrderWorld replay(OrderWorld world, String... steps) {
    return OrderSimulation.replay(world, steps);
  }

  /** The model's rule of a claim itself: a run at the head or right behind the relay's own rows. */
  @Example
  void aClaimTakesARunBehindTheRelaysOwnRowsButNotPastARowThatBacksOff() {
    OrderWorld world = new OrderWorld(0, 1);
    OrderRelay relay = world.relay(0);
    for (int i = 0; i < 5; i++) {
      world.write(0);
    }
    relay.produce();
    relay.produce();
    relay.produce(); // a's rows 1-3 (the greatest run), the lane started
    assertThat(relay.running).hasSize(1);
    relay.produce();
    relay.produce();
    relay.produce(); // rows 4-5 behind them, waiting for the first lane
    assertThat(relay.running).hasSize(1);

    relay.handle(0, Kind.RETRY); // row 1 fails: 2-3 released, the lane behind given back
    assertThat(relay.running).isEmpty();
    assertThat(relay.outcomes).hasSize(5);
  }

  /**
   * CI found this (seed not kept): a settle that writes a row given back opens a gap in the rows of
   * its aggregate the relay holds, and a claim then walks past fewer of them than it has in flight.
   */
  @Example
  void aRowGivenBackAndWrittenWakesAProducerThatPassedItsAggregateOver() {
    OrderWorld world = new OrderWorld(0, 1);
    OrderRelay relay = world.relay(0);
    for (int i = 0; i < 5; i++) {
      world.write(0);
    }
    for (int i = 0; i < 6; i++) {
      relay.produce(); // a's rows 1-3 start, 4-5 wait behind them
    }
    world.write(0);
    world.write(0);
    for (int i = 0; i < 6; i++) {
      relay.produce(); // five of a's rows in flight: the claim passes a over, the producer sleeps
    }
    assertThat(relay.passedOver).containsExactly("a");
    assertThat(relay.idle).isTrue();

    relay.stop(0); // 1-3 given back, 4-5 with them: row 1's release leaves four in flight
    world.quiesce(100);
  }

  /**
   * Found by 3,000,000 tries of the property: a row given back and then dead-lettered is no longer
   * in the way of a claim, so it must not count as where the claim's walk stops.
   */
  @Example
  void aRowGivenBackAndDeadLetteredIsNotWhereTheClaimsWalkStops() {
    OrderWorld world =
        replay(
            new OrderWorld(8, 1),
            "produce 0",
            "produce 0",
            "produce 0",
            "handle ok 2",
            "lane stops 0",
            "write 0",
            "produce 0",
            "write 0",
            "produce 0",
            "write 0",
            "produce 0",
            "handle ok 0",
            "settle 0",
            "settle 0",
            "handle dead 0",
            "settle 0",
            "settle 2",
            "handle ok 0",
            "produce 0",
            "settle 0",
            "produce 0",
            "produce 0",
            "produce 0",
            "produce 0",
            "produce 0",
            "settle 0",
            "handle dead 2",
            "handle ok 0",
            "settle 0",
            "handle dead 0",
            "produce 0",
            "settle 2",
            "produce 0",
            "produce 0",
            "settle 8",
            "produce 0",
            "produce 0",
            "produce 0",
            "produce 0",
            "produce 0",
            "produce 0");
    OrderRelay relay = world.relay(0);
    // a's 1 (sent), 7, 9, 10 (released) in flight, 11 released and written, 4 dead: four ahead
    assertThat(relay.passedOver).containsExactly("a");
    assertThat(relay.idle).isTrue();

    world.quiesce(100); // row 1's outcome leaves three ahead of 11: a claim finds it
  }

  /**
   * The relay's reconciler may read an unknown outcome between the completer's commit of it and the
   * completer telling the order; the settle told after the resolution must not make the row open
   * (where a claim's walk stops) again. Runs of one: a0 and a1 behind it in flight, the claim after
   * them short. a0 is resolved as sent, then its unknown outcome is told; a2 is claimed behind a1.
   * When a1 is sent, one run (a2) is left in flight of two: the producer that passed the aggregate
   * over must wake. With a0 open, the order counted the rows in flight up to a0 only (none), saw
   * nothing freed, and woke nobody until a2 was settled too.
   */
  @Example
  void aRowResolvedBeforeItsUnknownOutcomeIsToldStaysResolved() {
    AggregateOrder<TestRun> order = new AggregateOrder<>(1);
    order.beforeClaim();
    assertThat(order.claimed("t1", 10, java.util.List.of(message(0)))).isTrue();
    assertThat(order.claimed("t2", 10, java.util.List.of(message(1)))).isTrue();
    assertThat(order.claimed("t3", 10, java.util.List.of())).isFalse();

    order.resolved("a", 0, false);
    order.settled("t1", java.util.List.of(message(0)), true); // its unknown outcome, told late
    order.beforeClaim();
    assertThat(order.claimed("t4", 10, java.util.List.of(message(2)))).isTrue();
    assertThat(order.claimed("t5", 10, java.util.List.of())).isFalse();

    assertThat(order.settled("t2", java.util.List.of(message(1)), false))
        .as("a1 sent leaves one run in flight: the producer wakes")
        .isTrue();
  }

  private record TestRun(String token, String aggregate, long firstSeq)
      implements AggregateOrder.Run {}

  private static dev.jooqoutbox.OutboxMessage message(long seq) {
    return new dev.jooqoutbox.OutboxMessage(
        seq,
        "id-" + seq,
        "a",
        "t",
        "{}",
        Map.of(),
        1,
        java.time.Instant.EPOCH,
        new com.fasterxml.jackson.databind.ObjectMapper());
  }

  /**
   * Found by the seeded simulation (seed 58,780 of the hot aggregate, once reconcilers joined it):
   * a row of unknown outcome, pending again, is where the order took a claim's walk over the
   * relay's rows to stop; once a reconciler resolved it as sent, a claim walked past it and passed
   * the aggregate over for more than one run held, and the settles that followed, counted against
   * the stale stop, woke nobody. The relay's reconciler now tells the order of each resolution.
   */
  @Example
  void aRowResolvedSentByTheReconcilerIsNoLongerWhereTheClaimsWalkStops() {
    OrderWorld world =
        replay(
            new OrderWorld(12, 1, java.util.Set.of(), 1),
            "handle ok 1",
            "backoff ends 11",
            "lane stops 4",
            "lane stops 1",
            "handle ok 5",
            "produce 0",
            "produce 0",
            "write 4",
            "handle reschedule 9",
            "settle 10",
            "produce 8",
            "backoff ends 9",
            "handle ok 9",
            "handle unknown 2",
            "settle 4",
            "reconcile 4",
            "reconcile 11",
            "produce 10",
            "lane stops 4",
            "handle ok 1",
            "handle unknown 2",
            "handle ok 9",
            "handle unknown 1",
            "reconcile 4",
            "handle unknown 2",
            "settle 10",
            "produce 10",
            "produce 3",
            "handle reschedule 2",
            "handle ok 9",
            "reconcile 3",
            "produce 6",
            "produce 8",
            "handle unknown 6",
            "lane stops 0",
            "write 9",
            "produce 8",
            "handle dead 11",
            "produce 3",
            "handle unknown 10",
            "produce 8",
            "settle 2",
            "handle fails 1",
            "handle ok 8",
            "produce 9",
            "handle ok 8",
            "produce 4",
            "produce 8",
            "produce 0",
            "handle ok 6",
            "handle ok 4");
    OrderRelay relay = world.relay(0);
    assertThat(relay.passedOver).containsExactly("a");
    assertThat(relay.idle).isTrue();

    world.quiesce(100); // row 1's outcome leaves three rows ahead: a claim finds 6
  }

  private static Arbitrary<Integer> index() {
    return Arbitraries.integers().between(0, OrderSimulation.MAX_INDEX);
  }

  private static Action.Independent<OrderWorld> step(
      String name, Arbitrary<Integer> indexes, OrderSimulation.Step step) {
    return new Action.Independent<>() {
      @Override
      public Arbitrary<Transformer<OrderWorld>> transformer() {
        return indexes.map(i -> Transformer.mutate(name + " " + i, w -> step.apply(w, i)));
      }
    };
  }
}
