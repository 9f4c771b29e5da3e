package dev.jooqoutbox.internal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jooqoutbox.internal.relay.OrderSimulation.Shape;
import dev.jooqoutbox.internal.relay.SeededSteps.Bug;
import dev.jooqoutbox.testing.ReferenceStore;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The relay's order core ({@link AggregateOrder}, one per relay) under seeded runs of the {@link
 * OrderWorld} on the model store ({@link ReferenceStore}, which passes the databases' contract):
 * {@value #DEFAULT_SEEDS} seeds of each shape by default ({@code -Dsimulation.seeds=1000000} for a
 * long run, {@code -Dsimulation.first=N} to start elsewhere), each checked at every claim and
 * handler start and then quiesced. A failure names its seed and steps, which replay exactly ({@link
 * OrderSimulation#replay}).
 *
 * <p>And the simulation has teeth: each bug in {@link #bugs()}, switched on, makes some seed of the
 * budget fail.
 */
class OrderSimulationTest {

  static final int DEFAULT_SEEDS = 10_000;

  private static final long SEEDS = Long.getLong("simulation.seeds", DEFAULT_SEEDS);
  private static final long FIRST = Long.getLong("simulation.first", 1);

  @ParameterizedTest
  @EnumSource(Shape.class)
  void everySeedKeepsEachAggregatesOrderAndEndsDelivered(Shape shape) {
    System.out.printf("simulation %s: seeds %d to %d%n", shape, FIRST, FIRST + SEEDS - 1);
    for (long seed = FIRST; seed < FIRST + SEEDS; seed++) {
      AssertionError failure = OrderSimulation.run(shape, seed, Set.of());
      if (failure != null) {
        throw failure;
      }
    }
  }

  static Stream<Bug<Shape>> bugs() {
    return Stream.of(
        new Bug<>(AggregateOrder.Fault.START_WITHOUT_WAITING, Shape.ONE_RELAY),
        new Bug<>(AggregateOrder.Fault.NO_GIVEN_BACK_CHECK, Shape.ONE_RELAY),
        new Bug<>(AggregateOrder.Fault.NO_WAKE_WHEN_A_RUN_IS_FREED, Shape.HOT_AGGREGATE),
        new Bug<>(ReferenceStore.Fault.RUN_BEHIND_ANOTHERS_LEASE, Shape.TWO_RELAYS),
        new Bug<>(ReferenceStore.Fault.RUN_OVER_A_ROW_NOT_READY, Shape.ONE_RELAY),
        new Bug<>(ReferenceStore.Fault.TAKE_A_RUNNING_LEASE, Shape.TWO_RELAYS),
        new Bug<>(OrderWorld.Fault.SKEW_PAST_THE_LIMIT, Shape.TWO_RELAYS),
        new Bug<>(ReferenceStore.Fault.SETTLE_WITHOUT_TOKEN, Shape.TWO_RELAYS),
        new Bug<>(Heartbeat.Fault.EXTEND_AT_HALF, Shape.TWO_RELAYS));
  }

  @ParameterizedTest
  @MethodSource("bugs")
  void eachBugMakesASeedOfTheBudgetFail(Bug<Shape> bug) {
    long found =
        SeededSteps.firstFailing(
            DEFAULT_SEEDS,
            seed -> OrderSimulation.run(bug.shape(), seed, Set.of(bug.fault())) != null);
    System.out.printf("simulation: %s found by seed %d%n", bug, found);
    assertThat(found).as(bug + " is found within " + DEFAULT_SEEDS + " seeds").isPositive();
    assertThat(OrderSimulation.run(bug.shape(), found, Set.of()))
        .as("seed " + found + " passes without the bug")
        .isNull();
  }
}
