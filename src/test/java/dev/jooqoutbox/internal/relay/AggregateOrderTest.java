package dev.jooqoutbox.internal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.state.Action;
import net.jqwik.api.state.ActionChain;
import net.jqwik.api.state.Transformer;
import net.jqwik.api.statistics.Statistics;

/**
 * {@link AggregateOrder} under random sequences of claims (each cut in three steps between which
 * anything may happen), handler successes and failures, lanes stopping, outcomes written in any
 * order, backoffs ending and new commits, on the {@link OrderWorld} model. At every handler start,
 * every older message of the aggregate is delivered; afterwards, with faults gone, every message is
 * delivered within a bounded number of steps, the producer woken by commits and settles alone.
 */
class AggregateOrderTest {

  @Property(tries = 5000)
  void noMessageStartsBeforeAnOlderOneOfItsAggregateAndEverythingEndsDelivered(
      @ForAll("chains") ActionChain<OrderWorld> chain) {
    OrderWorld world = chain.run();
    world.quiesce(2000);
    Statistics.collect(world.handlerStarts > 20 ? "over 20 handler starts" : "up to 20");
  }

  @Provide
  Arbitrary<ActionChain<OrderWorld>> chains() {
    return ActionChain.<OrderWorld>startWith(() -> new OrderWorld(8))
        .withAction(6, step("produce", Arbitraries.just(0), (w, i) -> w.produce()))
        .withAction(5, step("handle ok", index(), (w, i) -> w.handle(i, OrderWorld.Kind.SENT)))
        .withAction(1, step("handle fails", index(), (w, i) -> w.handle(i, OrderWorld.Kind.RETRY)))
        .withAction(1, step("handle dead", index(), (w, i) -> w.handle(i, OrderWorld.Kind.DEAD)))
        .withAction(1, step("lane stops", index(), OrderWorld::stop))
        .withAction(6, step("settle", index(), OrderWorld::settle))
        .withAction(1, step("backoff ends", index(), OrderWorld::backoffEnds))
        .withAction(1, step("write", index(), OrderWorld::write))
        .withMaxTransformations(80);
  }

  /** The model's rule of a claim itself: a run at the head or right behind the relay's own rows. */
  @Example
  void aClaimTakesARunBehindTheRelaysOwnRowsButNotPastARowThatBacksOff() {
    OrderWorld world = new OrderWorld(0);
    for (int i = 0; i < 5; i++) {
      world.write(0);
    }
    world.produce();
    world.produce();
    world.produce(); // a's rows 1-3 (the greatest run), the lane started
    assertThat(world.running).hasSize(1);
    world.produce();
    world.produce();
    world.produce(); // rows 4-5 behind them, waiting for the first lane
    assertThat(world.running).hasSize(1);

    world.handle(0, OrderWorld.Kind.RETRY); // row 1 fails: 2-3 released, the lane behind given back
    assertThat(world.running).isEmpty();
    assertThat(world.outcomes).hasSize(5);
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
