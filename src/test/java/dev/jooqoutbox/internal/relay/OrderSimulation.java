package dev.jooqoutbox.internal.relay;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Seeded runs of the {@link OrderWorld}: a seed decides every step (which relay claims, which
 * handler succeeds or fails, which outcome is written, crashes, time), then the world must quiesce.
 * The same seed gives the same steps, so a failing seed replays exactly, step by step; the steps
 * are the ones jqwik prints for {@code AggregateOrderTest}'s chains ("produce 0", "settle 8").
 */
final class OrderSimulation {

  /**
   * One relay; one relay on a hot aggregate (every message written before the steps is of one
   * aggregate, so that more than one run of it is in flight); two relays that crash while time
   * moves.
   */
  enum Shape {
    ONE_RELAY(8, 3, 1, 80, 2000),
    HOT_AGGREGATE(12, 1, 1, 80, 2000),
    TWO_RELAYS(10, 3, 2, 120, 4000);

    final int messages;
    final int aggregates;
    final int relays;
    final int maxSteps;
    final int quiesceSteps;

    Shape(int messages, int aggregates, int relays, int maxSteps, int quiesceSteps) {
      this.messages = messages;
      this.aggregates = aggregates;
      this.relays = relays;
      this.maxSteps = maxSteps;
      this.quiesceSteps = quiesceSteps;
    }
  }

  /** A step of the world, given an index that names the relay, the lane or the outcome. */
  interface Step {
    void apply(OrderWorld world, int index);
  }

  /** The steps of a relay, by name, and their weights in a chain. */
  static final Map<String, Step> RELAY_STEPS = new LinkedHashMap<>();

  static final Map<String, Integer> WEIGHTS = new LinkedHashMap<>();

  /**
   * Every step by name: the relay's, and (two relays only) a crash, a tick of the time, and a
   * heartbeat that stalls or goes on again.
   */
  static final Map<String, Step> STEPS = new LinkedHashMap<>();

  static {
    relayStep("produce", 6, (w, i) -> w.relay(i).produce());
    relayStep("handle ok", 5, (w, i) -> w.relay(i).handle(i / 2, OrderRelay.Kind.SENT));
    relayStep("handle fails", 1, (w, i) -> w.relay(i).handle(i / 2, OrderRelay.Kind.RETRY));
    relayStep("handle dead", 1, (w, i) -> w.relay(i).handle(i / 2, OrderRelay.Kind.DEAD));
    relayStep("handle unknown", 1, (w, i) -> w.relay(i).handle(i / 2, OrderRelay.Kind.UNKNOWN));
    relayStep(
        "handle reschedule", 1, (w, i) -> w.relay(i).handle(i / 2, OrderRelay.Kind.RESCHEDULE));
    relayStep("lane stops", 1, (w, i) -> w.relay(i).stop(i / 2));
    relayStep("settle", 6, (w, i) -> w.relay(i).settle(i / 2));
    relayStep("settle, reconciled first", 1, (w, i) -> w.relay(i).settle(i / 2, true));
    relayStep("backoff ends", 1, OrderWorld::backoffEnds);
    relayStep("write", 1, OrderWorld::write);
    relayStep("reconcile", 1, OrderWorld::reconcile);
    relayStep("pause", 1, OrderWorld::pause);
    relayStep("poll", 1, (w, i) -> w.relay(i).readPauses());
    STEPS.putAll(RELAY_STEPS);
    STEPS.put("crash", OrderWorld::crash);
    WEIGHTS.put("crash", 1);
    STEPS.put("tick", OrderWorld::tick);
    WEIGHTS.put("tick", 2);
    STEPS.put("stall", OrderWorld::stall);
    WEIGHTS.put("stall", 1);
  }

  /** The greatest index a step is given (as AggregateOrderTest's chains). */
  static final int MAX_INDEX = 11;

  private OrderSimulation() {}

  private static void relayStep(String name, int weight, Step step) {
    RELAY_STEPS.put(name, step);
    WEIGHTS.put(name, weight);
  }

  /** The steps seed {@code seed} chooses for {@code shape}. */
  static List<String> steps(Shape shape, long seed) {
    List<String> names = new ArrayList<>(shape.relays > 1 ? STEPS.keySet() : RELAY_STEPS.keySet());
    return SeededSteps.draw(seed, names, WEIGHTS, shape.maxSteps, MAX_INDEX);
  }

  /**
   * Runs seed {@code seed} of {@code shape} with {@code faults} on; null when every check held,
   * else the failure, with the seed and its steps.
   */
  static AssertionError run(Shape shape, long seed, Set<? extends Enum<?>> faults) {
    List<String> steps = steps(shape, seed);
    OrderWorld world = new OrderWorld(shape.messages, shape.relays, faults, shape.aggregates);
    try {
      replay(world, steps.toArray(String[]::new));
      world.quiesce(shape.quiesceSteps);
      return null;
    } catch (AssertionError | RuntimeException e) {
      AssertionError failure =
          new AssertionError(
              shape + " seed " + seed + " failed; its steps: " + steps + "; " + e.getMessage());
      failure.initCause(e);
      return failure;
    }
  }

  /**
   * Runs the steps of a chain as jqwik prints them ("produce 0", "settle 8"): a failing chain or
   * seed replays exactly.
   */
  static OrderWorld replay(OrderWorld world, String... steps) {
    for (String s : steps) {
      Step step = STEPS.get(SeededSteps.name(s));
      if (step == null) {
        throw new IllegalArgumentException("no step " + s);
      }
      step.apply(world, SeededSteps.index(s));
    }
    return world;
  }
}
