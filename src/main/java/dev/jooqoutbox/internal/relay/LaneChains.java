package dev.jooqoutbox.internal.relay;

import java.util.HashMap;
import java.util.Map;

/**
 * Keeps this relay's lanes of one aggregate in seq order across claims. A claim may take a run
 * right behind the relay's own unsettled rows of an aggregate; that run's lane then starts only
 * when the aggregate's previous lane has delivered its whole run, and is given back when it stopped
 * early (a failure, a time-out, the relay closing), since its messages would then overtake one that
 * is to be retried.
 *
 * <p>An aggregate is remembered until nothing of it is in flight: only then is every outcome of its
 * lanes written, so that no later claim can see its rows as this relay's. Used by the producer
 * thread only.
 */
final class LaneChains {

  private final InFlight inFlight;
  private final Map<String, Lane> last = new HashMap<>();

  LaneChains(InFlight inFlight) {
    this.inFlight = inFlight;
  }

  /**
   * Forgets the aggregates with nothing in flight. Called before each claim: the claim's snapshot,
   * taken after, sees every outcome of their lanes written, so it takes their next run from the
   * head of the aggregate, not behind a lane of this relay.
   */
  void forgetSettled() {
    last.keySet().removeIf(aggregate -> !inFlight.holds(aggregate));
  }

  /** Starts {@code lane} now, or after the aggregate's previous lane when it still has one. */
  void start(Lane lane) {
    Lane previous = last.put(lane.aggregate(), lane);
    if (previous == null) {
      lane.start();
    } else {
      previous.then(lane);
    }
  }
}
