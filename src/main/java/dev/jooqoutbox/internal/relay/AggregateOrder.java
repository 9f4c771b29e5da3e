package dev.jooqoutbox.internal.relay;

import dev.jooqoutbox.OutboxMessage;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The one owner of a relay's order per aggregate: no message of an aggregate starts before an older
 * one of it is delivered. It decides for every claimed run whether it starts, waits behind the
 * relay's previous run of its aggregate, or is given back, and whether a settle can give the next
 * claim work. It does no I/O and has no thread: the producer, the lanes and the completer tell it
 * what happened (each method is one step, under its monitor) and act on its answer outside it. The
 * states and their transitions are drawn in docs/architecture.md ("The order of an aggregate").
 *
 * <p>What it rests on, from the claim ({@code WindowRuns}): a claim takes a run of an aggregate
 * either at the aggregate's head (every older row settled) or right behind this relay's own rows of
 * it still in flight, never behind another relay's. So a run is given back when it may have been
 * claimed behind a row this relay gave back (failed, timed out or released): a row given back and
 * still in flight when the claim began, or one given back while it ran, older than the run's first.
 * Otherwise it waits for the aggregate's previous run, if that one has not ended, and follows its
 * outcome: started when that delivered its whole run, given back when it stopped early. Any other
 * run starts at once: it is at the head of its aggregate or behind delivered rows only. An
 * aggregate is forgotten, before a claim, once nothing of it is in flight: every outcome of its
 * runs is then written, and the claim's snapshot sees it.
 *
 * @param <R> the runs, told apart by identity ({@link Lane} in the relay)
 */
final class AggregateOrder<R extends AggregateOrder.Run> {

  /** A claimed run of one aggregate, as this class sees it. */
  interface Run {
    /** The token of the claim that took it. */
    String token();

    String aggregate();

    /** The seq of its first message. */
    long firstSeq();
  }

  /** A message in flight: a seq of a claim (a seq given back may be claimed again by the next). */
  private record Held(String token, long seq) implements Comparable<Held> {
    @Override
    public int compareTo(Held o) {
      int bySeq = Long.compare(seq, o.seq);
      return bySeq != 0 ? bySeq : token.compareTo(o.token);
    }
  }

  /** What becomes of a run the claim just took. */
  enum Admission {
    /** Start it now. */
    START,
    /** It waits for the aggregate's previous run; {@link #ended} says what then. */
    WAIT,
    /** Give it back unstarted, without using its attempts. */
    GIVE_BACK
  }

  /**
   * Bugs this class had or could have, each switched on only by a test, to show that the simulation
   * of the order ({@code OrderSimulationTest}) finds it. None is ever on in a relay.
   */
  enum Fault {
    /** A run claimed behind the aggregate's previous run starts at once (as 9527066 did). */
    START_WITHOUT_WAITING,
    /** A run that may have been claimed behind a row given back is not given back. */
    NO_GIVEN_BACK_CHECK,
    /**
     * A settle that brings the rows of an aggregate in flight down to one run does not wake the
     * producer that passed the aggregate over for holding more.
     */
    NO_WAKE_WHEN_A_RUN_IS_FREED
  }

  /** The run that waited behind one that ended: to start, or to give back unstarted. */
  record Follower<R>(R run, boolean start) {}

  private static final class Node<R> {
    final R run;
    boolean ended;
    Node<R> after;

    Node(R run) {
      this.run = run;
    }
  }

  private static final class Aggregate<R> {
    // Its messages in flight at this relay, in seq order.
    final TreeSet<Held> inFlight = new TreeSet<>();
    // The aggregate's latest admitted run: the next one claimed waits behind it until it ends.
    Node<R> last;
    // Seqs this relay gave back that are still in flight (their outcome not written).
    final TreeSet<Held> givenBack = new TreeSet<>();
    // The lowest seq given back and in flight when the claim began, or given back since.
    long lowestGivenBack = Long.MAX_VALUE;
    // Seqs whose outcome is written, pending again (released, backing off, of unknown outcome),
    // and that no claim of this relay took since: not held, so a claim's walk over the relay's
    // rows of the aggregate stops at the first.
    final TreeSet<Long> open = new TreeSet<>();
    // Seqs in flight that a reconciler of this relay resolved as sent or dead before the completer
    // told of their unknown outcome: that settle leaves them not pending, so not open.
    final Set<Long> resolvedInFlight = new HashSet<>();

    /** How many of its rows in flight a claim walks past before it can take one. */
    int heldAhead() {
      return open.isEmpty()
          ? inFlight.size()
          : inFlight.headSet(new Held("", open.first()), false).size();
    }
  }

  private final int maxRun;
  private final Set<Fault> faults;
  private final Map<String, Aggregate<R>> aggregates = new HashMap<>();
  private final Map<R, Node<R>> running = new IdentityHashMap<>();
  // The last claim took less than it asked and no run of the greatest length: nothing more was
  // ready then (see settled).
  private boolean waitingForAnAggregate;

  /**
   * @param maxRun the greatest run of one aggregate a claim takes
   */
  AggregateOrder(int maxRun) {
    this(maxRun, Set.of());
  }

  /** A test's order with {@code faults} switched on. */
  AggregateOrder(int maxRun, Set<Fault> faults) {
    this.maxRun = maxRun;
    this.faults = Set.copyOf(faults);
  }

  /**
   * Called before each claim: forgets the aggregates with nothing in flight, and takes note of the
   * lowest seq given back and still in flight of each other one.
   */
  synchronized void beforeClaim() {
    aggregates.values().removeIf(a -> a.inFlight.isEmpty());
    for (Aggregate<R> a : aggregates.values()) {
      a.lowestGivenBack = a.givenBack.isEmpty() ? Long.MAX_VALUE : a.givenBack.first().seq();
    }
  }

  /**
   * The claim {@code token} took {@code claimed} (in seq order) of the {@code asked} it asked for;
   * they are in flight from now on. Returns whether to claim again at once: false when it took less
   * than it asked and no run of the greatest length (which may have more of its aggregate behind
   * it), so that nothing more was ready.
   */
  synchronized boolean claimed(String token, int asked, List<OutboxMessage> claimed) {
    Map<String, Integer> runs = new HashMap<>();
    boolean fullRun = false;
    for (OutboxMessage m : claimed) {
      Aggregate<R> a = aggregate(m.aggregate());
      a.inFlight.add(new Held(token, m.seq()));
      a.open.remove(m.seq());
      fullRun |= runs.merge(m.aggregate(), 1, Integer::sum) >= maxRun;
    }
    waitingForAnAggregate = claimed.size() < asked && !fullRun;
    return !waitingForAnAggregate;
  }

  /** The window had no room for a claim: any settle can give the next one work. */
  synchronized void windowFull() {
    waitingForAnAggregate = false;
  }

  /** Decides what becomes of {@code run}, which the last claim took. */
  synchronized Admission admit(R run) {
    Aggregate<R> a = aggregate(run.aggregate());
    if (run.firstSeq() > a.lowestGivenBack && !faults.contains(Fault.NO_GIVEN_BACK_CHECK)) {
      // Maybe claimed behind a row given back, which it would overtake. Not the aggregate's last
      // run: that stays the one before it in seq order, which may still be running.
      return Admission.GIVE_BACK;
    }
    Node<R> previous = a.last;
    Node<R> node = new Node<>(run);
    a.last = node;
    running.put(run, node);
    if (previous == null || previous.ended || faults.contains(Fault.START_WITHOUT_WAITING)) {
      return Admission.START;
    }
    previous.after = node;
    return Admission.WAIT;
  }

  /**
   * {@code run} ended: it delivered its whole run, or stopped early and gave {@code undelivered}
   * back (its failed message, then the rest). Returns the run that waited behind it, if one did,
   * with what to do with it now.
   */
  synchronized Follower<R> ended(R run, boolean delivered, List<Long> undelivered) {
    if (!undelivered.isEmpty()) {
      Aggregate<R> a = aggregate(run.aggregate());
      for (long seq : undelivered) {
        Held held = new Held(run.token(), seq);
        if (a.inFlight.contains(held)) {
          a.givenBack.add(held);
        }
        // A claim under way may have taken a run behind it, whether or not it is settled by now.
        a.lowestGivenBack = Math.min(a.lowestGivenBack, seq);
      }
    }
    Node<R> node = running.remove(run);
    if (node == null) {
      return null; // given back when admitted
    }
    node.ended = true;
    Node<R> next = node.after;
    node.after = null;
    return next == null ? null : new Follower<>(next.run, delivered);
  }

  /**
   * The outcomes of {@code settled}, of claim {@code token}, are written; {@code pending} when they
   * are pending again (released, backing off, rescheduled, of unknown outcome) rather than sent or
   * dead. Returns whether to wake the producer: the write left an aggregate with nothing in flight,
   * or brought the rows of it in flight ahead of the first one a claim can stop at (pending and not
   * held) down to at most one run (a claim passes over an aggregate with more), or made a row
   * pending with at most one run ahead of it; or the last claim was not short of ready messages.
   */
  synchronized boolean settled(String token, List<OutboxMessage> settled, boolean pending) {
    boolean claimable = false;
    for (OutboxMessage m : settled) {
      Held held = new Held(token, m.seq());
      Aggregate<R> a = aggregates.get(m.aggregate());
      if (a == null || !a.inFlight.contains(held)) {
        continue;
      }
      int aheadBefore = a.heldAhead();
      a.inFlight.remove(held);
      a.givenBack.remove(held);
      if (pending && !a.resolvedInFlight.remove(m.seq())) {
        a.open.add(m.seq());
      }
      int ahead = a.heldAhead();
      boolean freed = aheadBefore > maxRun && !faults.contains(Fault.NO_WAKE_WHEN_A_RUN_IS_FREED);
      claimable |= a.inFlight.isEmpty() || ahead <= maxRun && (freed || pending);
    }
    return claimable || !waitingForAnAggregate;
  }

  /**
   * A reconciler of this relay resolved row {@code seq} of {@code aggregate}, whose unknown outcome
   * had left it pending: sent or dead ({@code pending} false), it is no longer where a claim's walk
   * over this relay's rows of the aggregate stops, so the rows ahead of it count again; retried, it
   * is pending and still is. A row still in flight (its unknown outcome written, the completer not
   * yet having told of it) stays out of the pending rows when that settle is told. (A resolution
   * written elsewhere, by an operator or another relay's reconciler, is learnt from the poll.)
   */
  synchronized void resolved(String aggregate, long seq, boolean pending) {
    Aggregate<R> a = aggregates.get(aggregate);
    if (a == null || pending) {
      return;
    }
    a.open.remove(seq);
    // The reconciler may read the unknown outcome between its commit and the completer telling of
    // it: the settle still to come must not make it open.
    if (a.inFlight.stream().anyMatch(h -> h.seq() == seq)) {
      a.resolvedInFlight.add(seq);
    }
  }

  private Aggregate<R> aggregate(String aggregate) {
    return aggregates.computeIfAbsent(aggregate, k -> new Aggregate<>());
  }
}
