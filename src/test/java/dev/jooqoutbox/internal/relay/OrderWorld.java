package dev.jooqoutbox.internal.relay;

import dev.jooqoutbox.internal.relay.OrderStore.Row;
import dev.jooqoutbox.internal.relay.OrderStore.State;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A small model of one relay around an {@link AggregateOrder}: a store of rows with the claim's
 * rule ({@link OrderStore}), a producer whose claim is three steps (before the claim, the snapshot,
 * the admission) between which anything else may happen, lanes that deliver, fail or stop, a
 * completer that writes outcomes in any order, and the producer's wake-ups. Each method is one step
 * a test chooses; {@link #checkHandlerStart} and {@link #quiesce} hold the rules to it.
 */
final class OrderWorld {

  static final int MAX_RUN = 3;
  static final int BATCH = 4;
  static final int WINDOW = 6;

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

  private enum Phase {
    IDLE,
    BEGUN,
    TAKEN
  }

  final AggregateOrder<Run> order = new AggregateOrder<>(MAX_RUN);
  final OrderStore store = new OrderStore(MAX_RUN);
  private final Map<String, Set<Long>> unsettled = new HashMap<>();
  final List<Run> running = new ArrayList<>();
  final List<Outcome> outcomes = new ArrayList<>();
  private final Set<Long> handledOk = new HashSet<>();
  private final List<String> log = new ArrayList<>();
  private Phase phase = Phase.IDLE;
  private Set<String> held = Set.of();
  private String token;
  private int asked;
  private List<Row> taken = List.of();
  private Set<String> passedOver = Set.of();
  private int tokens;
  private boolean producerIdle;
  private boolean signalled;
  int handlerStarts;

  OrderWorld(int messages) {
    for (int i = 0; i < messages; i++) {
      write(i * 7 % OrderStore.AGGREGATES.size());
    }
  }

  /** A writer commits a message to an aggregate; the commit wakes the producer. */
  void write(int aggregate) {
    store.write(aggregate);
    signal();
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
    if (producerIdle) {
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
    asked = Math.min(BATCH, room);
    phase = Phase.BEGUN;
  }

  /** The claim's statement: leases the runs the claim's rule finds, in seq order, at most asked. */
  private void takeSnapshot() {
    token = "t" + (++tokens);
    taken = store.claimable(held).stream().limit(asked).toList();
    passedOver = Set.copyOf(store.overHeld);
    taken.forEach(r -> r.lease = token);
    phase = Phase.TAKEN;
  }

  private void admit() {
    phase = Phase.IDLE;
    if (!taken.isEmpty()) {
      Set<Long> seqs = unsettled.computeIfAbsent(token, t -> new HashSet<>());
      taken.forEach(r -> seqs.add(r.seq));
    }
    boolean again = order.claimed(token, asked, taken.stream().map(Row::message).toList());
    Map<String, List<Row>> byAggregate = new LinkedHashMap<>();
    taken.forEach(r -> byAggregate.computeIfAbsent(r.aggregate, a -> new ArrayList<>()).add(r));
    for (List<Row> run : byAggregate.values()) {
      Run lane = new Run(token, run);
      switch (order.admit(lane)) {
        case START -> start(lane);
        case GIVE_BACK -> giveBack(lane, 0, 0);
        case WAIT -> log.add("waits " + lane);
      }
    }
    if (!again) {
      await();
    }
  }

  String debug() {
    return "phase="
        + phase
        + " idle="
        + producerIdle
        + " signalled="
        + signalled
        + " outcomes="
        + outcomes.stream().map(o -> o.kind() + ":" + o.token() + ":" + o.row().seq).toList()
        + " unsettled="
        + unsettled
        + " running="
        + running;
  }

  private int room() {
    return WINDOW - unsettled.values().stream().mapToInt(Set::size).sum();
  }

  private void await() {
    if (signalled) {
      signalled = false; // a wake-up came while it claimed
    } else {
      producerIdle = true;
    }
  }

  private void signal() {
    if (producerIdle && phase == Phase.IDLE) {
      producerIdle = false;
    } else {
      signalled = true;
    }
  }

  private void start(Run lane) {
    log.add("starts " + lane);
    running.add(lane);
  }

  /** The handler of lane {@code i}'s next message returns {@code kind} (SENT for success). */
  void handle(int i, Kind kind) {
    if (running.isEmpty()) {
      return;
    }
    Run lane = running.get(i % running.size());
    Row row = lane.rows.get(lane.next);
    checkHandlerStart(row);
    handlerStarts++;
    if (kind == Kind.SENT) {
      handledOk.add(row.seq);
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
    end(
        lane,
        false,
        lane.rows.subList(undelivered, lane.rows.size()).stream().map(r -> r.seq).toList());
  }

  private void end(Run lane, boolean delivered, List<Long> undelivered) {
    running.remove(lane);
    log.add((delivered ? "delivered " : "gave back ") + lane);
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
        case SENT -> row.state = State.SENT;
        case RETRY -> row.ready = false;
        case DEAD -> row.state = State.DEAD;
        case RELEASED -> row.ready = true;
      }
    }
    handledOk.remove(row.seq);
    Set<Long> seqs = unsettled.get(o.token());
    seqs.remove(row.seq);
    if (seqs.isEmpty()) {
      unsettled.remove(o.token());
    }
    if (order.settled(o.token(), List.of(row.message()))) {
      signal();
    }
  }

  /** A failed message's backoff ends; the poll wakes the producer. */
  void backoffEnds(int i) {
    List<Row> backingOff = store.backingOff();
    if (!backingOff.isEmpty()) {
      backingOff.get(i % backingOff.size()).ready = true;
    }
    signal();
  }

  /**
   * A handler starts on {@code row}: every older row of its aggregate is sent, dead, or handled
   * with success and its outcome not written yet; the row itself is not delivered yet.
   */
  void checkHandlerStart(Row row) {
    for (Row older : store.rows.headMap(row.seq, false).values()) {
      if (older.aggregate.equals(row.aggregate)
          && older.state == State.PENDING
          && !handledOk.contains(older.seq)) {
        throw new AssertionError(
            "message "
                + row.seq
                + " of "
                + row.aggregate
                + " started before "
                + older.seq
                + " was delivered; "
                + log);
      }
    }
    if (row.state != State.PENDING || handledOk.contains(row.seq)) {
      throw new AssertionError("message " + row.seq + " handled again; " + log);
    }
  }

  /**
   * While the producer sleeps with room in the window, a claim would find no run that a settle
   * promised to wake it for: none of an aggregate with nothing in flight, none of an aggregate the
   * last claim passed over for having more than one run in flight. A run made ready since by a
   * give-back written behind the relay's own rows may wait for the next settle of its aggregate,
   * which leaves it with nothing in flight at the latest.
   */
  private void checkNoLostWakeUp() {
    if (!producerIdle || phase != Phase.IDLE || room() <= 0) {
      return;
    }
    Set<String> inFlight = new HashSet<>();
    unsettled
        .values()
        .forEach(seqs -> seqs.forEach(seq -> inFlight.add(store.rows.get(seq).aggregate)));
    for (Row r : store.claimable(Set.copyOf(unsettled.keySet()))) {
      if (!inFlight.contains(r.aggregate) || passedOver.contains(r.aggregate)) {
        throw new AssertionError(
            "the producer sleeps while a claim would find message "
                + r.seq
                + (inFlight.contains(r.aggregate)
                    ? ", passed over by the last claim"
                    : ", nothing of its aggregate in flight")
                + "; "
                + log);
      }
    }
  }

  /**
   * No more faults: handlers succeed, outcomes are written, backoffs end. Within {@code steps}
   * steps every message must end sent or dead, the producer woken by commits and settles alone (a
   * poll only when a backoff ended): no claim-and-release loop, no lost wake-up.
   */
  void quiesce(int steps) {
    for (int step = 0; step < steps; step++) {
      if (!running.isEmpty()) {
        handle(0, Kind.SENT);
      } else if (!outcomes.isEmpty()) {
        settle(0);
      } else if (phase != Phase.IDLE || !producerIdle) {
        produce();
      } else if (!store.backingOff().isEmpty()) {
        backoffEnds(0);
      } else {
        break;
      }
      checkNoLostWakeUp();
    }
    List<Long> left = store.pending();
    if (!left.isEmpty()) {
      throw new AssertionError(
          "after "
              + steps
              + " steps without faults, still pending: "
              + left
              + "; producer idle "
              + producerIdle
              + "; claimable "
              + store.claimable(Set.copyOf(unsettled.keySet())).size()
              + "; "
              + log);
    }
  }
}
