package dev.jooqoutbox.internal.relay;

import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.Resolution;
import dev.jooqoutbox.internal.relay.OrderRelay.Kind;
import dev.jooqoutbox.testing.ModelRow;
import dev.jooqoutbox.testing.ReferenceStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
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

  /** The relays' clocks are this far off the store's time, ahead or behind: 4 s apart. */
  static final long SKEW = 2;

  /** Faults of the world itself, for the simulation's tests. */
  enum Fault {
    /** The relays' clocks 12 s apart, more than the 10 s lease (the documented limit: half). */
    SKEW_PAST_THE_LIMIT
  }

  private final long skew;

  final OrderStore store;
  final List<OrderRelay> relays = new ArrayList<>();
  final Set<AggregateOrder.Fault> orderFaults;
  private final Set<Heartbeat.Fault> heartbeatFaults;
  // Handled with success, the outcome not written yet: by which relay.
  // Handled with success, the outcome not written yet: by which relay, in which claim.
  // (Several claims may have: a claim taken over after its lease ran out, and the one that took
  // it.)
  private final Map<Long, Set<OrderRelay.Handled>> handledOk = new HashMap<>();
  private final Map<Long, Integer> successes = new HashMap<>();
  private final List<String> log = new ArrayList<>();
  private int crashes;
  int handlerStarts;

  OrderWorld(int messages, int relays) {
    this(messages, relays, Set.of(), OrderStore.AGGREGATES.size());
  }

  /**
   * A world with {@code faults} switched on ({@link AggregateOrder.Fault}s in every relay's order,
   * {@link ReferenceStore.Fault}s in the store): a simulation must then fail. The first {@code
   * messages} go to {@code aggregates} aggregates (1: all to one, a hot aggregate).
   */
  OrderWorld(int messages, int relays, Set<? extends Enum<?>> faults, int aggregates) {
    this.orderFaults = faultsOf(faults, AggregateOrder.Fault.class);
    this.heartbeatFaults = faultsOf(faults, Heartbeat.Fault.class);
    this.skew = faults.contains(Fault.SKEW_PAST_THE_LIMIT) ? 3 * SKEW : SKEW;
    this.store = new OrderStore(MAX_RUN, LEASE, faultsOf(faults, ReferenceStore.Fault.class));
    for (int r = 0; r < relays; r++) {
      // Several relays: their clocks 4 s apart, of a 10 s lease (tolerated: below half of it).
      long off = relays == 1 ? 0 : (r % 2 == 0 ? -skew : skew);
      this.relays.add(new OrderRelay("r" + r, this, store, off));
    }
    for (int i = 0; i < messages; i++) {
      write(i * 7 % aggregates);
    }
  }

  private static <E extends Enum<E>> Set<E> faultsOf(Set<? extends Enum<?>> faults, Class<E> kind) {
    Set<E> of = new HashSet<>();
    faults.stream().filter(kind::isInstance).map(kind::cast).forEach(of::add);
    return of;
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
    List<ModelRow> backingOff = store.backingOff();
    if (!backingOff.isEmpty()) {
      store.endBackoff(backingOff.get(i % backingOff.size()));
    }
    relays.forEach(OrderRelay::signal);
  }

  /**
   * A reconciler resolves the oldest outcome-unknown message due: sent, retried or dead by {@code
   * i}; every relay's order learns of it and every relay wakes, as the relay whose reconciler it is
   * does (with several relays, the others would learn from their poll). It runs on the clock
   * furthest ahead, so that every unknown outcome is due for it.
   */
  void reconcile(int i) {
    reconcile(Resolution.values()[i % Resolution.values().length]);
  }

  /** A reconciler resolves the oldest outcome-unknown message due as sent. */
  void reconcileAsSent() {
    reconcile(Resolution.SENT);
  }

  private boolean reconcile(Resolution resolution) {
    OutboxMessage message = store.reconcile(resolution, skew);
    if (message == null) {
      return false;
    }
    log("reconciled " + message.seq() + " " + resolution);
    for (OrderRelay relay : relays) {
      relay.order.resolved(message.aggregate(), message.seq(), resolution == Resolution.RETRY);
      relay.signal();
    }
    return true;
  }

  /**
   * Relay {@code i}'s heartbeat stalls, or goes on again: while it stalls the relay extends none of
   * its leases, and its lanes and completer go on.
   */
  void stall(int i) {
    OrderRelay relay = relay(i);
    relay.stalled = !relay.stalled;
    relay.mayLapse.addAll(relay.unsettled.keySet());
    log((relay.stalled ? "stalls " : "goes on ") + relay);
  }

  /** Fails the run with {@code what} and the log so far. */
  void fail(String what) {
    throw new AssertionError(what + "; " + log);
  }

  /** Relay {@code i} crashes and starts again with nothing; its leases run out. */
  void crash(int i) {
    OrderRelay relay = relay(i);
    handledOk.values().forEach(handled -> handled.removeIf(h -> h.relay() == relay));
    handledOk.values().removeIf(Set::isEmpty);
    relay.crash();
    crashes++;
    log("crash " + relay);
  }

  /**
   * Time moves on by 1 to 3 s, and each relay's heartbeat beats when it is due, by the engine's
   * rule ({@link Heartbeat#due}): a sixth of the lease (1.7 s) after its previous beat, and late by
   * 0, 0.5 or 1 s. A claim is then at most 5.3 s old when a beat extends it, and the other relay's
   * clock runs 4 s ahead: 0.7 s of the 10 s lease are left. (Extending only once half of the lease
   * is gone, a claim would be up to 7.7 s old: past the 6 s the other relay allows it.)
   */
  void tick(int i) {
    Instant end = store.now().plusSeconds(1 + i % 3);
    Duration late = Duration.ofMillis(500L * (i / 3 % 3));
    Duration period = Heartbeat.period(store.lease());
    while (true) {
      OrderRelay next = relays.stream().min(Comparator.comparing(r -> r.nextBeat)).orElseThrow();
      if (next.nextBeat.isAfter(end)) {
        break;
      }
      Instant at = next.nextBeat.isAfter(store.now()) ? next.nextBeat : store.now();
      store.advanceTo(at); // (a beat due while time leapt in quiesce comes now)
      next.beat(heartbeatFaults);
      next.nextBeat = at.plus(period).plus(late);
    }
    store.advanceTo(end);
    relays.forEach(OrderRelay::readPauses); // the poll
  }

  /**
   * An operator pauses the topic {@link OrderStore#PAUSABLE}, or resumes it; each relay reads it at
   * the next tick (its poll).
   */
  void pause(int i) {
    boolean paused =
        store.rows.pause(OrderStore.PAUSABLE) || !store.rows.resume(OrderStore.PAUSABLE);
    log((paused ? "pauses " : "resumes ") + OrderStore.PAUSABLE);
  }

  void log(String event) {
    log.add(event);
  }

  /** The outcome of {@code seq} in claim {@code token} is written (or lost the race to another). */
  void settled(long seq, String token) {
    handledOk.computeIfPresent(
        seq,
        (k, handled) -> {
          handled.removeIf(h -> h.token().equals(token));
          return handled.isEmpty() ? null : handled;
        });
  }

  /**
   * A claim of {@code relay} takes {@code taken}: none of it is in flight in another claim, of this
   * relay or another, unless that claim's heartbeat stalled (its lease may have run out, and the
   * claim is then taken over: its deliveries may repeat and overlap). A claim whose heartbeat kept
   * going keeps its lease.
   */
  void checkTaken(OrderRelay relay, List<OutboxMessage> taken) {
    for (OutboxMessage r : taken) {
      if (relay.pausedSeen().contains(r.topic())) {
        fail(relay + " claimed " + r.seq() + " of " + r.topic() + ", which it has read paused");
      }
    }
    for (OrderRelay holder : relays) {
      for (Map.Entry<String, Set<Long>> claim : holder.unsettled.entrySet()) {
        for (OutboxMessage r : taken) {
          if (!claim.getValue().contains(r.seq())) {
            continue;
          }
          if (!holder.mayLapse.contains(claim.getKey())) {
            fail(relay + " claimed " + r.seq() + ", in flight at " + holder);
          }
          holder.lapsed.add(claim.getKey()); // its lease ran out while its heartbeat stalled
        }
      }
    }
  }

  /**
   * A handler of {@code relay} starts on {@code row}: its lease is the lane's and runs; every older
   * row of its aggregate is sent, dead, or handled with success and its outcome not written yet;
   * the row itself is not.
   */
  void handlerStarts(
      OrderRelay relay, OrderRelay.Run lane, OutboxMessage message, boolean succeeds) {
    handlerStarts++;
    long seq = message.seq();
    if (succeeds) {
      successes.merge(seq, 1, Integer::sum);
    }
    if (relay.lapsed.contains(lane.token)) {
      // Its lease ran out and another claim took the row over: a second delivery, which may
      // overlap the first and overtake its order (guarantees.md, "What breaks the order"). A
      // success is still a delivery, which the messages behind it may follow.
      if (succeeds) {
        handled(seq, relay, lane.token);
      }
      return;
    }
    if (!store.leasedTo(seq, lane.token) && !relay.mayLapse.contains(lane.token)) {
      fail(relay + " handles " + seq + " without its lease");
    }
    for (ModelRow older : store.rows.rows()) {
      if (older.seq() < seq
          && older.aggregate().equals(message.aggregate())
          && older.pending()
          && !handledOk.containsKey(older.seq())) {
        fail(
            "message "
                + seq
                + " of "
                + message.aggregate()
                + " started before "
                + older.seq()
                + " was delivered");
      }
    }
    Set<OrderRelay.Handled> before = handledOk.getOrDefault(seq, Set.of());
    boolean byLapsedClaims = before.stream().allMatch(h -> h.relay().lapsed.contains(h.token()));
    if (!store.rows.row(seq).pending() || !byLapsedClaims) {
      fail("message " + seq + " handled again");
    }
    if (succeeds) {
      handled(seq, relay, lane.token);
    }
  }

  private void handled(long seq, OrderRelay relay, String token) {
    handledOk.computeIfAbsent(seq, k -> new HashSet<>()).add(new OrderRelay.Handled(relay, token));
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
        .forEach(s -> s.forEach(q -> inFlight.add(store.rows.row(q).aggregate())));
    for (ModelRow r : store.claimable(relay.unsettled, relay.topics())) {
      if (!inFlight.contains(r.aggregate()) || relay.passedOver.contains(r.aggregate())) {
        throw new AssertionError(
            "the producer sleeps while a claim would find message "
                + r.seq()
                + (inFlight.contains(r.aggregate())
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
    relays.forEach(r -> r.stalled = false);
    store.rows.resume(OrderStore.PAUSABLE);
    relays.forEach(OrderRelay::readPauses);
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
      } else if (reconcile(Resolution.SENT)) {
        log("quiesce: an unknown outcome resolved");
      } else if (!store.backingOff().isEmpty()) {
        backoffEnds(0);
      } else if (store.anyLeaseRuns()) {
        store.advanceTo(
            store
                .now()
                .plusSeconds(LEASE)); // only a crashed relay's leases are left: let them run out
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
    int lapses = relays.stream().mapToInt(r -> r.lapsed.size()).sum();
    if (duplicates > (crashes + lapses) * WINDOW) {
      throw new AssertionError(
          duplicates
              + " messages handled twice after "
              + crashes
              + " crashes and "
              + lapses
              + " claims taken over; "
              + log);
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
