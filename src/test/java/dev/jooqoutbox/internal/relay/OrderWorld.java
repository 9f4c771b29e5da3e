package dev.jooqoutbox.internal.relay;

import dev.jooqoutbox.internal.relay.OrderRelay.Kind;
import dev.jooqoutbox.internal.relay.OrderStore.Row;
import dev.jooqoutbox.internal.relay.OrderStore.State;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A small model of relays around their {@link AggregateOrder}s: a store of rows with the claim's
 * rule and leases ({@link OrderStore}), one relay or several ({@link OrderRelay}) that claim,
 * deliver, fail, give back, settle, crash and start again, the time moving, with every alive
 * relay's heartbeat keeping its leases. Each method is one step a test chooses; the checks at each
 * handler start and claim, and {@link #quiesce}, hold the rules to it.
 */
final class OrderWorld {

  static final int MAX_RUN = 3;
  static final int BATCH = 4;
  static final int WINDOW = 6;
  static final long LEASE = 10;

  final OrderStore store = new OrderStore(MAX_RUN, LEASE);
  final List<OrderRelay> relays = new ArrayList<>();
  // Handled with success, the outcome not written yet: by which relay.
  private final Map<Long, OrderRelay> handledOk = new HashMap<>();
  private final Map<Long, Integer> successes = new HashMap<>();
  private final List<String> log = new ArrayList<>();
  private int crashes;
  int handlerStarts;

  OrderWorld(int messages, int relays) {
    for (int r = 0; r < relays; r++) {
      this.relays.add(new OrderRelay("r" + r, this, store));
    }
    for (int i = 0; i < messages; i++) {
      write(i * 7 % OrderStore.AGGREGATES.size());
    }
  }

  OrderRelay relay(int i) {
    return relays.get(i % relays.size());
  }

  /** A writer commits a message to an aggregate; the commit wakes every relay. */
  void write(int aggregate) {
    store.write(aggregate);
    relays.forEach(OrderRelay::signal);
  }

  /** A failed message's backoff ends; the poll wakes every relay. */
  void backoffEnds(int i) {
    List<Row> backingOff = store.backingOff();
    if (!backingOff.isEmpty()) {
      backingOff.get(i % backingOff.size()).ready = true;
    }
    relays.forEach(OrderRelay::signal);
  }

  /** Relay {@code i} crashes and starts again with nothing; its leases run out. */
  void crash(int i) {
    OrderRelay relay = relay(i);
    handledOk.values().removeIf(r -> r == relay);
    relay.crash();
    crashes++;
    log("crash " + relay);
  }

  /** Time moves on by 1 to 3; the heartbeat of every relay extends the leases it holds. */
  void tick(int i) {
    store.now += 1 + i % 3;
    relays.forEach(r -> store.extend(r.unsettled.keySet()));
  }

  void log(String event) {
    log.add(event);
  }

  void settled(Row row) {
    handledOk.remove(row.seq);
  }

  /**
   * A claim of {@code relay} takes {@code taken}: none of it is in flight at another relay (whose
   * lease would then still run, the heartbeat keeping it).
   */
  void checkTaken(OrderRelay relay, List<Row> taken) {
    for (OrderRelay other : relays) {
      for (Row r : taken) {
        if (other != relay && other.unsettled.values().stream().anyMatch(s -> s.contains(r.seq))) {
          throw new AssertionError(
              relay + " claimed " + r.seq + ", in flight at " + other + "; " + log);
        }
      }
    }
  }

  /**
   * A handler of {@code relay} starts on {@code row}: its lease is the lane's and runs; every older
   * row of its aggregate is sent, dead, or handled with success and its outcome not written yet;
   * the row itself is not.
   */
  void handlerStarts(OrderRelay relay, OrderRelay.Run lane, Row row, boolean succeeds) {
    handlerStarts++;
    if (!store.leasedTo(row, lane.token)) {
      throw new AssertionError(relay + " handles " + row.seq + " without its lease; " + log);
    }
    for (Row older : store.rows.headMap(row.seq, false).values()) {
      if (older.aggregate.equals(row.aggregate)
          && older.state == State.PENDING
          && !handledOk.containsKey(older.seq)) {
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
    if (row.state != State.PENDING || handledOk.containsKey(row.seq)) {
      throw new AssertionError("message " + row.seq + " handled again; " + log);
    }
    if (succeeds) {
      handledOk.put(row.seq, relay);
      successes.merge(row.seq, 1, Integer::sum);
    }
  }

  /**
   * With one relay: while its producer sleeps with room in the window, a claim would find no run
   * that a settle promised to wake it for: none of an aggregate with nothing in flight, none of an
   * aggregate the last claim passed over for having more than one run in flight. A run made ready
   * since by a give-back written behind the relay's own rows may wait for the next settle of its
   * aggregate, which leaves it with nothing in flight at the latest. (Several relays learn of each
   * other's settles only from the poll.)
   */
  private void checkNoLostWakeUp() {
    OrderRelay relay = relays.get(0);
    if (relays.size() > 1 || !relay.idle || relay.phase != OrderRelay.Phase.IDLE) {
      return;
    }
    if (relay.room() <= 0) {
      return;
    }
    Set<String> inFlight = new HashSet<>();
    relay
        .unsettled
        .values()
        .forEach(s -> s.forEach(q -> inFlight.add(store.rows.get(q).aggregate)));
    for (Row r : store.claimable(Set.copyOf(relay.unsettled.keySet()))) {
      if (!inFlight.contains(r.aggregate) || relay.passedOver.contains(r.aggregate)) {
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
   * No more faults: handlers succeed, outcomes are written, backoffs end, time moves on when only
   * leases of a crashed relay hold rows back, and with several relays the poll wakes them when
   * nothing else does. Within {@code steps} steps every message must end sent or dead: no
   * claim-and-release loop, no lost wake-up; a message is handled with success more than once only
   * after a crash, at most a window's worth per crash.
   */
  void quiesce(int steps) {
    for (int step = 0; step < steps; step++) {
      OrderRelay lanes = first(r -> !r.running.isEmpty());
      OrderRelay writes = first(r -> !r.outcomes.isEmpty());
      OrderRelay producing = first(r -> r.phase != OrderRelay.Phase.IDLE || !r.idle);
      if (lanes != null) {
        lanes.handle(0, Kind.SENT);
      } else if (writes != null) {
        writes.settle(0);
      } else if (producing != null) {
        producing.produce();
      } else if (!store.backingOff().isEmpty()) {
        backoffEnds(0);
      } else if (store.anyLeaseRuns()) {
        store.now += LEASE; // only a crashed relay's leases are left: let them run out
        relays.forEach(OrderRelay::signal);
      } else if (relays.size() > 1 && !store.pending().isEmpty()) {
        relays.forEach(OrderRelay::signal); // the poll
      } else {
        break;
      }
      checkNoLostWakeUp();
    }
    List<Long> left = store.pending();
    if (!left.isEmpty()) {
      throw new AssertionError(
          "after " + steps + " steps without faults, still pending: " + left + "; " + log);
    }
    int duplicates = duplicates();
    if (duplicates > crashes * WINDOW) {
      throw new AssertionError(
          duplicates + " messages handled twice after " + crashes + " crashes; " + log);
    }
  }

  /** How many more successful handlings than messages handled with success. */
  int duplicates() {
    return successes.values().stream().mapToInt(n -> n - 1).sum();
  }

  int crashes() {
    return crashes;
  }

  private OrderRelay first(java.util.function.Predicate<OrderRelay> p) {
    return relays.stream().filter(p).findFirst().orElse(null);
  }
}
