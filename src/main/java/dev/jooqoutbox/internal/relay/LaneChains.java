package dev.jooqoutbox.internal.relay;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;

/**
 * Keeps this relay's lanes of one aggregate in seq order across claims. A claim may take a run
 * right behind the relay's own unsettled rows of an aggregate; that run's lane then starts only
 * when the aggregate's previous lane has delivered its whole run, and is given back when it stopped
 * early (a failure, a time-out, the relay closing), since its messages would then overtake one that
 * is to be retried.
 *
 * <p>A run claimed behind a row that a lane gave back and that was still in flight before the claim
 * (a row settles in flight only after its outcome is written, so the claim saw all of those as this
 * relay's) is given back at once. Any other run whose previous lane gave its run back starts at
 * once: it is at the head of the aggregate (taking again what was given back, once that was
 * written) or behind delivered rows only. Giving that one back as well repeated with each claim
 * that came before the last give-back was settled: a claim-and-release loop that delivered nothing
 * more of the aggregate.
 *
 * <p>An aggregate is remembered until nothing of it is in flight: only then is every outcome of its
 * lanes written, so that no later claim can see its rows as this relay's. Used by the producer
 * thread only.
 */
final class LaneChains {

  private final InFlight inFlight;
  private final Queue<GivenBack> reported;
  private final Map<String, Lane> last = new HashMap<>();
  // What lanes gave back and is still in flight, by aggregate.
  private final Map<String, List<GivenBack>> givenBack = new HashMap<>();
  // Before the claim: the lowest seq given back and still in flight, of each aggregate with one.
  private final Map<String, Long> lowestGivenBack = new HashMap<>();

  LaneChains(InFlight inFlight, Queue<GivenBack> reported) {
    this.inFlight = inFlight;
    this.reported = reported;
  }

  /**
   * Called before each claim. Forgets the aggregates with nothing in flight: the claim's snapshot,
   * taken after, sees every outcome of their lanes written, so it takes their next run from the
   * head of the aggregate, not behind a lane of this relay. Takes note of what is given back and
   * still in flight.
   */
  void forgetSettled() {
    last.keySet().removeIf(aggregate -> !inFlight.holds(aggregate));
    for (GivenBack g = reported.poll(); g != null; g = reported.poll()) {
      givenBack.computeIfAbsent(g.lane().aggregate(), a -> new ArrayList<>()).add(g);
      g.lane().knownToHaveGivenBack = true;
    }
    lowestGivenBack.clear();
    givenBack
        .entrySet()
        .removeIf(
            e -> {
              long lowest = lowestInFlight(e.getValue());
              if (lowest == Long.MAX_VALUE) {
                return true; // all written: nothing a claim could take a run behind
              }
              lowestGivenBack.put(e.getKey(), lowest);
              return false;
            });
  }

  /** The lowest of {@code given}'s seqs still in flight; {@link Long#MAX_VALUE} when none is. */
  private long lowestInFlight(List<GivenBack> given) {
    long lowest = Long.MAX_VALUE;
    for (GivenBack g : given) {
      for (long seq : g.seqs()) {
        if (seq < lowest && inFlight.holds(g.lane().token(), seq)) {
          lowest = seq;
        }
      }
    }
    return lowest;
  }

  /** Starts {@code lane} now, after the aggregate's previous lane, or gives it back. */
  void start(Lane lane) {
    Long lowest = lowestGivenBack.get(lane.aggregate());
    if (lowest != null && lane.firstSeq() > lowest) {
      // Claimed behind a row given back, which it would overtake. Not the aggregate's last lane:
      // that stays the one in seq order before it, which may still be running.
      lane.giveBackUnstarted();
      return;
    }
    Lane previous = last.put(lane.aggregate(), lane);
    if (previous == null || previous.knownToHaveGivenBack) {
      lane.start(); // every lane of the aggregate before it has ended
    } else {
      previous.then(lane);
    }
  }
}
