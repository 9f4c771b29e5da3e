package dev.jooqoutbox.internal.relay;

import dev.jooqoutbox.internal.relay.OrderStore.Row;
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
    final List<Row> rows;
    int next;

    Run(String token, List<Row> rows) {
      this.token = token;
      this.rows = rows;
    }

    @Override
    public String token() {
      return token;
    }

    @Override
    public String aggregate() {
      return rows.get(0).aggregate;
    }

    @Override
    public long firstSeq() {
      return rows.get(0).seq;
    }

    @Override
    public String toString() {
      return token + ":" + rows.stream().map(r -> r.seq).toList();
    }
  }

  enum Kind {
    SENT,
    RETRY,
    DEAD,
    RELEASED
  }

  record Outcome(Kind kind, String token, Row row) {}

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
  final List<Run> running = new ArrayList<>();
  final List<Outcome> outcomes = new ArrayList<>();
  Phase phase = Phase.IDLE;
  private Set<String> held = Set.of();
  private String token;
  private int asked;
  private List<Row> taken = List.of();
  Set<String> passedOver = Set.of();
  private int tokens;
  boolean idle;
  private boolean signalled;

  OrderRelay(String name, OrderWorld world, OrderStore store) {
    this.name = name;
    this.world = world;
    this.store = store;
    crash();
  }

  /** Loses everything in memory and starts again: its leases run out in the store. */
  void crash() {
    order = new AggregateOrder<>(OrderWorld.MAX_RUN);
    unsettled.clear();
    running.clear();
    outcomes.clear();
    phase = Phase.IDLE;
    held = Set.of();
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
    held = Set.copyOf(unsettled.keySet());
    asked = Math.min(OrderWorld.BATCH, room);
    phase = Phase.BEGUN;
  }

  /** The claim's statement: leases the runs the claim's rule finds, in seq order, at most asked. */
  private void takeSnapshot() {
    token = name + "." + lives + "." + (++tokens);
    taken = store.claimable(held).stream().limit(asked).toList();
    passedOver = Set.copyOf(store.overHeld);
    world.checkTaken(this, taken);
    taken.forEach(r -> store.lease(r, token));
    // In flight from here on (InFlight.claimed, as the claim returns): the heartbeat extends it.
    if (!taken.isEmpty()) {
      Set<Long> seqs = unsettled.computeIfAbsent(token, t -> new HashSet<>());
      taken.forEach(r -> seqs.add(r.seq));
    }
    phase = Phase.TAKEN;
  }

  private void admit() {
    phase = Phase.IDLE;
    boolean again = order.claimed(token, asked, taken.stream().map(Row::message).toList());
    Map<String, List<Row>> byAggregate = new LinkedHashMap<>();
    taken.forEach(r -> byAggregate.computeIfAbsent(r.aggregate, a -> new ArrayList<>()).add(r));
    for (List<Row> run : byAggregate.values()) {
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
    Row row = lane.rows.get(lane.next);
    world.handlerStarts(this, lane, row, kind == Kind.SENT);
    if (kind == Kind.SENT) {
      outcomes.add(new Outcome(Kind.SENT, lane.token, row));
      if (++lane.next == lane.rows.size()) {
        end(lane, true, List.of());
      }
    } else {
      outcomes.add(new Outcome(kind == Kind.DEAD ? Kind.DEAD : Kind.RETRY, lane.token, row));
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
    for (Row r : lane.rows.subList(release, lane.rows.size())) {
      outcomes.add(new Outcome(Kind.RELEASED, lane.token, r));
    }
    List<Long> seqs =
        lane.rows.subList(undelivered, lane.rows.size()).stream().map(r -> r.seq).toList();
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
    if (outcomes.isEmpty()) {
      return;
    }
    Outcome o = outcomes.remove(i % outcomes.size());
    Row row = o.row();
    if (o.token().equals(row.lease)) { // each write is a compare-and-swap on the claim token
      row.lease = null;
      switch (o.kind()) {
        case SENT -> row.state = OrderStore.State.SENT;
        case RETRY -> row.ready = false;
        case DEAD -> row.state = OrderStore.State.DEAD;
        case RELEASED -> row.ready = true;
      }
    }
    world.settled(row);
    Set<Long> seqs = unsettled.get(o.token());
    seqs.remove(row.seq);
    if (seqs.isEmpty()) {
      unsettled.remove(o.token());
    }
    boolean pending = o.kind() == Kind.RETRY || o.kind() == Kind.RELEASED;
    if (order.settled(o.token(), List.of(row.message()), pending)) {
      signal();
    }
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
