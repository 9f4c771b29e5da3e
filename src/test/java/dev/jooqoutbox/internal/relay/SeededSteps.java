package dev.jooqoutbox.internal.relay;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.LongPredicate;

/**
 * What the seeded simulations share: the steps a seed draws ("name index", as a failure prints
 * them, so that it replays exactly), and the first seed of a budget that fails.
 */
final class SeededSteps {

  private SeededSteps() {}

  /** A bug switched on by a test-only switch, and the shape of world that shows it. */
  record Bug<S>(Enum<?> fault, S shape) {
    @Override
    public String toString() {
      return fault + " (" + shape + ")";
    }
  }

  /**
   * Up to {@code maxSteps} steps drawn by seed {@code seed} from {@code names}, each as often as
   * its weight says, with an index from 0 to {@code maxIndex}.
   */
  static List<String> draw(
      long seed, List<String> names, Map<String, Integer> weights, int maxSteps, int maxIndex) {
    Random random = new Random(seed);
    int total = names.stream().mapToInt(weights::get).sum();
    int length = random.nextInt(maxSteps + 1);
    List<String> steps = new ArrayList<>(length);
    for (int s = 0; s < length; s++) {
      int pick = random.nextInt(total);
      String name = null;
      for (String n : names) {
        pick -= weights.get(n);
        if (pick < 0) {
          name = n;
          break;
        }
      }
      steps.add(name + " " + random.nextInt(maxIndex + 1));
    }
    return steps;
  }

  /** The name of step {@code step} ("settle 8": "settle"). */
  static String name(String step) {
    return step.substring(0, step.lastIndexOf(' '));
  }

  /** The index of step {@code step} ("settle 8": 8). */
  static int index(String step) {
    return Integer.parseInt(step.substring(step.lastIndexOf(' ') + 1));
  }

  /** The first seed from 1 to {@code budget} for which {@code fails} holds, or -1. */
  static long firstFailing(long budget, LongPredicate fails) {
    for (long seed = 1; seed <= budget; seed++) {
      if (fails.test(seed)) {
        return seed;
      }
    }
    return -1;
  }
}
