package dev.jooqoutbox.internal.relay;

import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.testing.ModelRow;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One relay of {@link OrderWorld} around its own {@link AggregateOrder}: a producer whose claim is
 * three steps (before the claim, the snapshot, the admission) between which anything else may
 * happen, lanes that deliver, fail or stop, a completer that writes outcomes in any order, and the
 * producer's wake-ups. A crash loses all of it; the relay starts again with nothing.
 */
final class OrderRelay {

  /** A lane as the order sees it. */
  static final class Run implements AggregateOrder.Run {
    final String token;
    final List<OutboxMessage> rows;
    int next;

    Run(String token, List<OutboxMessage> rows) {
      this.token = token;
      this.rows = rows;
    }

    @Override
    public String token() {
      return token;
    }

    @Override
    public String aggregate() {
      return rows.get(0).aggregate();
    }

    @Override
    public long firstSeq() {
      return rows.get(0).seq();
    }

    @Override
    public String toString() {
      return token + ":" + rows.stream().map(OutboxMessage::seq).toList();
    }
  }

  /** What became of a message: what its handler returned, or released unhandled. */
  enum Kind {
    SENT,
    RETRY,
    DEAD,
    RELEASED,
    /** The handler could not tell whether it delivered: held for a reconciler. */
    UNKNOWN,
    /** The handler asked for it again later, its attempt given back. */
    RESCHEDULE
  }

  record Outcome(Kind kind, String token, OutboxMessage row) {}

  /** A message handled with success by {@code relay} in claim {@code token}. */
  record Handled(OrderRelay relay, String token) {}

  enum Phase {
    IDLE,
    BEGUN,
    TAKEN
  }

  private final String name;
  private final OrderWorld world;
  private final OrderStore store;
  private int lives;
  AggregateOrder<Run> order;
  final Map<String, Set<Long>> unsettled = new HashMap<>();
  // When each claim's lease ends, as this relay knows it (InFlight.Claim.leaseEnd).
  private final Map<String, Instant> leaseEnds = new HashMap<>();

  /** The engine's own reader of the paused topics: at the relay's start, then each poll. */
  private PausedTopics paused;

  /** When its heartbeat beats next, in the store's time. */
  Instant nextBeat;

  final List<Run> running = new ArrayList<>();
  final List<Outcome> outcomes = new ArrayList<>();
  Phase phase = Phase.IDLE;
  private Map<String, Set<Long>> held = Map.of();
  private String token;
  private int asked;
  private List<OutboxMessage> taken = List.of();
  Set<String> passedOver = Set.of();
  private int tokens;
  boolean idle;
  private boolean signalled;

  /** How far this relay's clock is ahead of the store's time (behind when negative), in seconds. */
  final long skew;

  /**
   * Its heartbeat is stuck (a long pause, the database out of its reach) while its lanes and
   * completer go on: its leases may run out and another relay take its rows over.
   */
  boolean stalled;

  /** The claims of this relay whose rows another relay took over after their leases ran out. */
  final Set<String> lapsed = new HashSet<>();

  /** The claims of this relay in flight while its heartbeat stalled: their leases may run out. */
  final Set<String> mayLapse = new HashSet<>();

  OrderRelay(String name, OrderWorld world, OrderStore store, long skew) {
    this.skew = skew;
    this.name = name;
    this.world = world;
    this.store = store;
    crash();
  }

  /** Loses everything in memory and starts again: its leases run out in the store. */
  void crash() {
    order = new AggregateOrder<>(OrderWorld.MAX_RUN, world.orderFaults);
    unsettled.clear();
    leaseEnds.clear();
    nextBeat = store.now().plus(Heartbeat.period(store.lease()));
    paused = new PausedTopics(store.rows, this::signal);
    paused.refresh();
    running.clear();
    outcomes.clear();
    phase = Phase.IDLE;
    held = Map.of();
    taken = List.of();
    passedOver = Set.of();
    idle = false;
    signalled = false;
    lives++;
  }

  /** The producer's next step, if it is awake. */
  void produce() {
    switch (phase) {
      case IDLE -> beginClaim();
      case BEGUN -> takeSnapshot();
      case TAKEN -> admit();
    }
  }

  private void beginClaim() {
    if (idle) {
      return;
    }
    int room = room();
    if (room <= 0) {
      order.windowFull();
      await();
      return;
    }
    order.beforeClaim();
    held = copy(unsettled);
    asked = Math.min(OrderWorld.BATCH, room);
    phase = Phase.BEGUN;
  }

  /** The claim's statement: leases the runs the claim's rule finds, in seq order, at most asked. */
  private void takeSnapshot() {
    token = name + "." + lives + "." + (++tokens);
    passedOver = store.passedOver(held.keySet());
    taken = store.claim(token, asked, held, skew, topics());
    if (stalled) {
      mayLapse.add(token);
    }
    world.checkTaken(this, taken);
    // In flight from here on (InFlight.claimed, as the claim returns): the heartbeat extends it.
    if (!taken.isEmpty()) {
      Set<Long> seqs = unsettled.computeIfAbsent(token, t -> new HashSet<>());
      taken.forEach(r -> seqs.add(r.seq()));
      leaseEnds.put(token, store.now(skew).plus(store.lease()));
    }
    phase = Phase.TAKEN;
  }

  private static Map<String, Set<Long>> copy(Map<String, Set<Long>> unsettled) {
    Map<String, Set<Long>> copy = new HashMap<>();
    unsettled.forEach((token, seqs) -> copy.put(token, Set.copyOf(seqs)));
    return copy;
  }

  private void admit() {
    phase = Phase.IDLE;
    boolean again = order.claimed(token, asked, taken);
    Map<String, List<OutboxMessage>> byAggregate = new LinkedHashMap<>();
    taken.forEach(r -> byAggregate.computeIfAbsent(r.aggregate(), a -> new ArrayList<>()).add(r));
    for (List<OutboxMessage> run : byAggregate.values()) {
      Run lane = new Run(token, run);
      switch (order.admit(lane)) {
        case START -> start(lane);
        case GIVE_BACK -> giveBack(lane, 0, 0);
        case WAIT -> world.log("waits " + lane);
      }
    }
    if (!again) {
      await();
    }
  }

  int room() {
    return OrderWorld.WINDOW - unsettled.values().stream().mapToInt(Set::size).sum();
  }

  private void await() {
    if (signalled) {
      signalled = false; // a wake-up came while it claimed
    } else {
      idle = true;
    }
  }

  /** A commit, a settle or the poll wakes the producer. */
  void signal() {
    if (idle && phase == Phase.IDLE) {
      idle = false;
    } else {
      signalled = true;
    }
  }

  private void start(Run lane) {
    world.log("starts " + lane);
    running.add(lane);
  }

  /** The handler of lane {@code i}'s next message returns {@code kind} (SENT for success). */
  void handle(int i, Kind kind) {
    if (running.isEmpty()) {
      return;
    }
    Run lane = running.get(i % running.size());
    OutboxMessage row = lane.rows.get(lane.next);
    world.handlerStarts(this, lane, row, kind == Kind.SENT);
    if (kind == Kind.SENT) {
      outcomes.add(new Outcome(Kind.SENT, lane.token, row));
      if (++lane.next == lane.rows.size()) {
        end(lane, true, List.of());
      }
    } else {
      outcomes.add(new Outcome(kind, lane.token, row));
      giveBack(lane, lane.next + 1, lane.next);
    }
  }

  /** Lane {@code i} stops between messages (the relay closing) and gives the rest back. */
  void stop(int i) {
    if (!running.isEmpty()) {
      Run lane = running.get(i % running.size());
      giveBack(lane, lane.next, lane.next);
    }
  }

  private void giveBack(Run lane, int release, int undelivered) {
    for (OutboxMessage r : lane.rows.subList(release, lane.rows.size())) {
      outcomes.add(new Outcome(Kind.RELEASED, lane.token, r));
    }
    List<Long> seqs =
        lane.rows.subList(undelivered, lane.rows.size()).stream().map(OutboxMessage::seq).toList();
    end(lane, false, seqs);
  }

  private void end(Run lane, boolean delivered, List<Long> undelivered) {
    running.remove(lane);
    world.log((delivered ? "delivered " : "gave back ") + lane);
    AggregateOrder.Follower<Run> next = order.ended(lane, delivered, undelivered);
    if (next != null) {
      if (next.start()) {
        start(next.run());
      } else {
        giveBack(next.run(), 0, 0);
      }
    }
  }

  /** The completer writes outcome {@code i} (of those not written yet, in any order). */
  void settle(int i) {
    settle(i, false);
  }

  /**
   * As {@link #settle(int)}; when {@code reconcileFirst} and the outcome is unknown, a reconciler
   * resolves an unknown outcome as sent after the completer wrote it and before the order learns
   * that it was written.
   */
  void settle(int i, boolean reconcileFirst) {
    if (outcomes.isEmpty()) {
      return;
    }
    Outcome o = outcomes.remove(i % outcomes.size());
    OutboxMessage row = o.row();
    ModelRow before = store.rows.row(row.seq());
    switch (o.kind()) {
      case SENT -> store.sent(o.token(), row.seq());
      case RETRY -> store.retry(o.token(), row.seq());
      case DEAD -> store.dead(o.token(), row.seq());
      case RELEASED -> store.release(o.token(), row.seq());
      case UNKNOWN -> store.unknown(o.token(), row.seq(), skew);
      case RESCHEDULE -> store.reschedule(o.token(), row.seq(), skew);
    }
    if (before != null && !o.token().equals(before.claimToken())) {
      ModelRow after = store.rows.row(row.seq());
      if (!before.equals(after)) {
        world.fail(
            this
                + "'s "
                + o.kind()
                + " of "
                + row.seq()
                + " changed it, leased to "
                + before.claimToken()
                + ": "
                + before
                + " -> "
                + after);
      }
    }
    if (before != null && o.token().equals(before.claimToken())) {
      world.settled(row.seq(), o.token());
    } // else the row was taken over: a success stays a delivery, another one may follow
    Set<Long> seqs = unsettled.get(o.token());
    seqs.remove(row.seq());
    if (seqs.isEmpty()) {
      unsettled.remove(o.token());
      leaseEnds.remove(o.token());
    }
    if (reconcileFirst && o.kind() == Kind.UNKNOWN) {
      // The relay's reconciler reads the unknown outcome between the completer's commit of it and
      // the completer telling the order.
      world.reconcileAsSent();
    }
    boolean pending = o.kind() != Kind.SENT && o.kind() != Kind.DEAD;
    if (order.settled(o.token(), List.of(row), pending)) {
      signal();
    }
  }

  /**
   * A beat of the heartbeat, unless it stalls: the engine's rule ({@link Heartbeat#due}) picks the
   * claims it extends, a full lease from now on this relay's clock.
   */
  void beat(Set<Heartbeat.Fault> faults) {
    if (stalled) {
      return;
    }
    Instant now = store.now(skew);
    Map<String, Set<Long>> due = new HashMap<>();
    unsettled.forEach(
        (t, seqs) -> {
          if (Heartbeat.due(leaseEnds.get(t), now, store.lease(), faults)) {
            due.put(t, seqs);
          }
        });
    if (!due.isEmpty()) {
      store.extend(due, skew);
      due.keySet().forEach(t -> leaseEnds.put(t, now.plus(store.lease())));
    }
  }

  /** The topics its claims ask for: those it handles that it has not read paused. */
  Set<String> topics() {
    return paused.claimable(OrderStore.TOPICS);
  }

  /** The paused topics as it last read them. */
  Set<String> pausedSeen() {
    return paused.paused();
  }

  /** Its poll reads the paused topics (PausedTopics.refresh); a resume wakes the producer. */
  void readPauses() {
    paused.refresh();
  }

  /** Whether this relay has anything to do but wait. */
  boolean busy() {
    return !running.isEmpty() || !outcomes.isEmpty() || phase != Phase.IDLE || !idle;
  }

  @Override
  public String toString() {
    return name;
  }
}
