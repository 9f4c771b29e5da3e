package dev.jooqoutbox.testing;

import dev.jooqoutbox.internal.repository.ClaimRequest;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The claim's rule in the model ({@link ReferenceStore}): the runs of ready messages per aggregate,
 * from its head or right behind the claimer's own held rows, as {@code WindowRuns} finds them on a
 * database that could read every pending row at once.
 */
final class ModelClaim {

  private ModelClaim() {}

  /**
   * The rows a claim {@code c} leases among {@code rows} (in seq order): the runs every aggregate
   * offers ({@link #run}), the oldest {@code c.limit()} of their rows, in seq order.
   */
  static List<ModelRow> wouldClaim(
      Collection<ModelRow> rows, ClaimRequest c, Set<ReferenceStore.Fault> faults) {
    if (c.topics().isEmpty() || c.limit() <= 0) {
      return List.of();
    }
    Map<String, List<ModelRow>> pendingByAggregate = new LinkedHashMap<>();
    for (ModelRow r : rows) {
      if (r.pending()) {
        pendingByAggregate.computeIfAbsent(r.aggregate(), a -> new ArrayList<>()).add(r);
      }
    }
    List<ModelRow> candidates = new ArrayList<>();
    for (List<ModelRow> pending : pendingByAggregate.values()) {
      candidates.addAll(run(pending, c, faults));
    }
    candidates.sort(Comparator.comparingLong(ModelRow::seq));
    return List.copyOf(candidates.subList(0, Math.min(c.limit(), candidates.size())));
  }

  /**
   * The run an aggregate offers, from its pending rows in seq order: after at most {@code maxRun}
   * rows the claimer holds (leased to one of its held tokens, the lease running, the outcome
   * known), or from the head when it holds none, the ready rows up to the first that is not, at
   * most {@code maxRun}.
   */
  private static List<ModelRow> run(
      List<ModelRow> pending, ClaimRequest c, Set<ReferenceStore.Fault> faults) {
    int i = 0;
    while (i < pending.size() && heldBy(pending.get(i), c, faults)) {
      i++;
    }
    if (i > c.maxRun()) {
      return List.of();
    }
    List<ModelRow> run = new ArrayList<>();
    for (; i < pending.size() && run.size() < c.maxRun(); i++) {
      ModelRow r = pending.get(i);
      if (ready(r, c, faults)) {
        run.add(r);
      } else if (!faults.contains(ReferenceStore.Fault.RUN_OVER_A_ROW_NOT_READY)
          || r.leasedAt(c.now())) {
        break;
      }
    }
    return run;
  }

  private static boolean ready(ModelRow r, ClaimRequest c, Set<ReferenceStore.Fault> faults) {
    if (faults.contains(ReferenceStore.Fault.TAKE_A_RUNNING_LEASE) && r.leasedAt(c.now())) {
      return r.with(null, null).ready(c.topics(), c.now());
    }
    return r.ready(c.topics(), c.now());
  }

  private static boolean heldBy(ModelRow r, ClaimRequest c, Set<ReferenceStore.Fault> faults) {
    boolean anyones = faults.contains(ReferenceStore.Fault.RUN_BEHIND_ANOTHERS_LEASE);
    return r.claimToken() != null
        && (anyones || c.held().tokens().contains(r.claimToken()))
        && r.leasedAt(c.now())
        && r.outcomeUnknownAt() == null;
  }
}
