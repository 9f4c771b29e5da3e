package dev.jooqoutbox.internal.relay;

import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.relay.OutcomeUnknownException;
import dev.jooqoutbox.relay.PermanentFailureException;
import dev.jooqoutbox.relay.Reconciliation;
import dev.jooqoutbox.relay.RescheduleException;
import dev.jooqoutbox.testing.ManualTimers;
import dev.jooqoutbox.testing.ModelRow;
import dev.jooqoutbox.testing.MutableClock;
import dev.jooqoutbox.testing.ReferenceStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The relay engine's own code ({@link RelayEngine}: its producer's claim, {@link AggregateOrder},
 * the lanes, the attempts, the completer, the heartbeat, the watchdog and the paused topics' reads)
 * on the model store ({@link ReferenceStore}), with none of its threads: each relay's lanes run on
 * a queue of tasks ({@link EngineRelay}), its timers are {@link ManualTimers}, and its producer and
 * completer are stepped ({@link RelayEngine#produceOnce}, {@link RelayEngine#completeOnce}). A step
 * names what happens next; the steps a seed picks decide every interleaving. The second relay's
 * clock is {@link #SKEW} ahead of the first's. Handlers are asynchronous: a call stays open until a
 * step answers it (delivered, failed, failed for good, outcome unknown, rescheduled) or the
 * watchdog times it out; a reconciler is asked when a step says, and answered by it; a claim or
 * settle statement fails when a step says. Checked at every handler call: every older message of
 * its aggregate was delivered, resolved as sent, or is dead, and no live call of the message is
 * open at another claim (one not timed out, of a relay that did not crash or stall, on a lease it
 * held); a settle by a claim taken over changes nothing ({@link TokenCheckedStore}). {@link
 * #quiesce} then checks that no producer sleeps while a claim would find work, that everything ends
 * sent or dead, and that messages delivered twice are within the bound crashes, stalls and
 * time-outs allow.
 */
final class EngineWorld {

  static final Instant START = Instant.parse("2026-12-07T00:00:00Z");

  /**
   * How far the second relay's clock is ahead of the first's: within the documented limit, below
   * half of the 10 s lease.
   */
  static final Duration SKEW = Duration.ofSeconds(4);

  /** A tick's index for a poll interval: {@code 100 ms * (POLL_TICKS + 1)}. */
  static final int POLL_TICKS = 9;

  /** A handler call not yet completed. */
  record Call(
      EngineRelay relay,
      OutboxMessage message,
      CompletableFuture<Void> future,
      Instant at,
      boolean onALapsedLease) {}

  final MutableClock clock = new MutableClock(START);
  final ReferenceStore store;
  private final Set<? extends Enum<?>> faults;
  final EngineRelay[] relays;
  final List<Call> open = new ArrayList<>();
  final Map<Long, Integer> deliveries = new HashMap<>();
  final List<String> log = new ArrayList<>();
  int crashes;
  int stalls;
  int timedOut;
  private AssertionError failure;
  Reconciliation answer = Reconciliation.sent();
  private static final List<Reconciliation> ANSWERS =
      List.of(
          Reconciliation.sent(),
          Reconciliation.retry(),
          Reconciliation.dead("no such payment"),
          Reconciliation.stillUnknown());
  private static final Duration RESCHEDULE = Duration.ofMillis(500);

  EngineWorld(int relayCount, int messages, int aggregates, Set<? extends Enum<?>> faults) {
    this.faults = faults;
    Set<ReferenceStore.Fault> storeFaults = EnumSet.noneOf(ReferenceStore.Fault.class);
    faults.stream()
        .filter(ReferenceStore.Fault.class::isInstance)
        .map(ReferenceStore.Fault.class::cast)
        .forEach(storeFaults::add);
    store = new ReferenceStore(clock, storeFaults);
    relays = new EngineRelay[relayCount];
    for (int r = 0; r < relayCount; r++) {
      relays[r] = relay(r, 1);
    }
    for (int m = 0; m < messages; m++) {
      store.write("agg-" + (m % aggregates), "t", Duration.ZERO);
    }
  }

  private EngineRelay relay(int id, int incarnation) {
    return new EngineRelay(
        id,
        incarnation,
        clock,
        id == 1 ? SKEW : Duration.ZERO,
        new TokenCheckedStore(store, this::fail),
        relay -> message -> call(relay, message),
        (message, ref) -> answer,
        faults);
  }

  /** A handler is called: the checks, then a call that stays open until a step completes it. */
  private CompletableFuture<Void> call(EngineRelay relay, OutboxMessage message) {
    log.add(relay + " calls " + message.seq());
    for (ModelRow row : store.rows()) {
      if (row.aggregate().equals(message.aggregate())
          && row.seq() < message.seq()
          && row.deadAt() == null
          && row.sentAt() == null // sent: delivered, or resolved so by a reconciler
          && row.attempts() <= EngineRelay.MAX_ATTEMPTS // else dead: its attempts were used up
          && !deliveries.containsKey(row.seq())) {
        fail(message.seq() + " called before " + row.seq() + " of its aggregate was delivered");
      }
    }
    // A lane of a relay whose timers stalled may call a message whose lease ran out meanwhile, and
    // that another relay may have claimed since (the claim tokens name their relay: EngineRelay).
    // Such a call may overlap another, as guarantees.md says; any other may not.
    ModelRow row = store.row(message.seq());
    boolean lapsed =
        row.claimToken() == null
            || !row.claimToken().startsWith(relay + ".")
            || !row.lockedUntil().isAfter(clock.instant());
    for (Call c : open) {
      if (!lapsed
          && c.message().seq() == message.seq()
          && !c.relay().crashed
          && !c.relay().stalled
          && c.relay().lastStalled.isBefore(c.at())
          && !c.onALapsedLease()
          && c.at().plus(EngineRelay.MAX_HANDLING).isAfter(clock.instant())) {
        fail(message.seq() + " called by " + relay + " while " + c.relay() + "'s call runs");
      }
    }
    CompletableFuture<Void> future = new CompletableFuture<>();
    open.add(new Call(relay, message, future, clock.instant(), lapsed));
    return future;
  }

  /** Completes open call {@code i}: delivered, failed, or failed for good. */
  void complete(int i, int how) {
    if (open.isEmpty()) {
      return;
    }
    Call c = open.remove(i % open.size());
    if (!c.at().plus(EngineRelay.MAX_HANDLING).isAfter(clock.instant())) {
      timedOut++; // the watchdog has given up on it: whatever it says changes nothing
    }
    log.add(c.relay() + " completes " + c.message().seq() + " " + how);
    switch (how) {
      case 0 -> {
        deliveries.merge(c.message().seq(), 1, Integer::sum);
        c.future().complete(null);
      }
      case 1 -> c.future().completeExceptionally(new IllegalStateException("failed"));
      case 2 -> c.future().completeExceptionally(new PermanentFailureException("for good"));
      case 3 -> c.future().completeExceptionally(new OutcomeUnknownException("no answer"));
      default -> c.future().completeExceptionally(RescheduleException.after(RESCHEDULE));
    }
  }

  EngineRelay relay(int i) {
    return relays[i % relays.length];
  }

  /**
   * Relay {@code i}'s producer takes a turn: a claim when its window has room. It remembers whether
   * to claim again at once, as the producer's loop does.
   */
  void claim(int i) {
    EngineRelay r = relay(i);
    r.claimed = true;
    r.engine.takeWakeup();
    try {
      r.again = r.engine.produceOnce();
    } catch (IllegalStateException refused) {
      log.add(r + "'s claim failed");
      r.again = true; // the producer tries again after a short delay
    }
  }

  /** Relay {@code i} runs its queued lane task {@code i / relays}. */
  void run(int i) {
    EngineRelay r = relay(i);
    if (!r.tasks.queued.isEmpty()) {
      r.tasks.queued.remove((i / relays.length) % r.tasks.queued.size()).run();
    }
  }

  /** Relay {@code i}'s completer writes what was reported. */
  void completer(int i) {
    try {
      relay(i).engine.completeOnce();
    } catch (IllegalStateException refused) {
      log.add(relay(i) + "'s completer failed"); // kept, in order, for its next write
    }
  }

  /**
   * Relay {@code i}'s reconciler asks about the unknown outcomes due, and is answered, by {@code
   * i}: sent, retry, dead or still unknown.
   */
  void reconcile(int i) {
    answer = ANSWERS.get((i / relays.length) % ANSWERS.size());
    try {
      relay(i).engine.reconcileOnce();
    } catch (IllegalStateException refused) {
      log.add(relay(i) + "'s reconciler failed");
    }
  }

  /** Relay {@code i}'s next claim or settle statement fails. */
  void refuse(int i) {
    relay(i).store.failNext = true;
  }

  /**
   * Time moves {@code 100 ms * (i + 1)}, 100 ms at a time; every relay's timers that do not stall
   * run what falls due.
   */
  void tick(int i) {
    for (int n = 0; n <= i; n++) {
      clock.advance(Duration.ofMillis(100));
      for (EngineRelay r : relays) {
        if (!r.stalled) {
          r.timers.advance(Duration.ZERO);
        }
      }
    }
  }

  /**
   * Relay {@code i}'s timers stall (its heartbeat and watchdog stand still while its lanes and
   * completer go on), or go on again. A call of a relay that stalled may overlap another's.
   */
  void stall(int i) {
    EngineRelay r = relay(i);
    r.stalled = !r.stalled;
    r.lastStalled = clock.instant();
    if (r.stalled) {
      stalls++;
    }
    log.add(r + (r.stalled ? " stalls" : " goes on"));
  }

  /**
   * Relay {@code i} crashes and starts again: its memory, its queued tasks and its open calls are
   * lost, its leases left to run out.
   */
  void crash(int i) {
    EngineRelay r = relay(i);
    r.crashed = true;
    r.tasks.shut = true;
    open.removeIf(c -> c.relay() == r);
    crashes++;
    relays[r.id] = relay(r.id, r.incarnation + 1);
    log.add(r + " crashed");
  }

  /** No more faults, then every message must be sent or dead within {@code rounds} rounds. */
  void quiesce(int rounds) {
    new Quiescence(this).run(rounds);
  }

  /**
   * Fails the world. A check fails inside a handler call too, where the engine takes what the
   * handler throws for a failed attempt: the first failure is kept and thrown again after the step
   * ({@link #afterStep}).
   */
  void fail(String what) {
    AssertionError e =
        new AssertionError(what + "; " + log.subList(Math.max(0, log.size() - 30), log.size()));
    if (failure == null) {
      failure = e;
    }
    throw e;
  }

  /** Throws the first failure of a check, if one failed during the step. */
  void afterStep() {
    if (failure != null) {
      throw failure;
    }
  }
}
