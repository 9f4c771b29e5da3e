package dev.jooqoutbox.internal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jooqoutbox.internal.relay.OrderRelay.Kind;
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
        .withAction(1, step("crash", index(), OrderWorld::crash))
        .withAction(2, step("tick", index(), OrderWorld::tick))
        .withMaxTransformations(120);
  }

  private static ActionChainArbitrary<OrderWorld> withRelayActions(
      ActionChainArbitrary<OrderWorld> chain) {
    return chain
        .withAction(6, step("produce", index(), (w, i) -> w.relay(i).produce()))
        .withAction(5, step("handle ok", index(), (w, i) -> handle(w, i, Kind.SENT)))
        .withAction(1, step("handle fails", index(), (w, i) -> handle(w, i, Kind.RETRY)))
        .withAction(1, step("handle dead", index(), (w, i) -> handle(w, i, Kind.DEAD)))
        .withAction(1, step("lane stops", index(), (w, i) -> w.relay(i).stop(i / 2)))
        .withAction(6, step("settle", index(), (w, i) -> w.relay(i).settle(i / 2)))
        .withAction(1, step("backoff ends", index(), OrderWorld::backoffEnds))
        .withAction(1, step("write", index(), OrderWorld::write));
  }

  /**
   * Index {@code i} names the relay ({@code i} modulo their number) and the lane ({@code i / 2}).
   */
  private static void handle(OrderWorld world, int i, Kind kind) {
    world.relay(i).handle(i / 2, kind);
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

  private static Arbitrary<Integer> index() {
    return Arbitraries.integers().between(0, 11);
  }

  private interface Step {
    void apply(OrderWorld world, int index);
  }

  private static Action.Independent<OrderWorld> step(
      String name, Arbitrary<Integer> indexes, Step step) {
    return new Action.Independent<>() {
      @Override
      public Arbitrary<Transformer<OrderWorld>> transformer() {
        return indexes.map(i -> Transformer.mutate(name + " " + i, w -> step.apply(w, i)));
      }
    };
  }
}
