package dev.jooqoutbox.internal.relay;

import dev.jooqoutbox.relay.Reconciliation;

/** The end of a run of {@link EngineWorld}: its faults stop, and everything must settle. */
final class Quiescence {

  /** More turns than a world of a dozen messages can need without time moving. */
  private static final int MAX_TURNS = 10_000;

  private final EngineWorld w;

  Quiescence(EngineWorld world) {
    this.w = world;
  }

  /**
   * No more faults: stalled timers go on, statements no longer fail, open calls are delivered,
   * tasks run, completers write, and producers claim when woken, until nothing is left to do with
   * time standing still. Then a claim must find nothing (a relay never sleeps while a settle made a
   * run claimable: only time, a backoff or a lease running out, may make work that waits for the
   * poll); time moves a poll interval and every producer polls. Within {@code rounds} rounds every
   * message must be sent or dead.
   */
  void run(int rounds) {
    for (EngineRelay r : w.relays) {
      if (r.stalled) {
        w.stall(r.id);
      }
      r.store.failNext = false;
    }
    for (int round = 0; round < rounds; round++) {
      w.afterStep();
      if (w.store.rows().stream().allMatch(row -> row.sentAt() != null || row.deadAt() != null)) {
        checkDuplicates();
        return;
      }
      w.tick(EngineWorld.POLL_TICKS);
      w.answer = Reconciliation.sent();
      for (EngineRelay r : w.relays) {
        r.engine.reconcileOnce();
        w.claim(r.id); // the poll
      }
      settleWhileWoken();
      for (EngineRelay r : w.relays) {
        if (r.skewed) {
          continue; // ahead of the others, it sees their backoffs end early: its poll finds those
        }
        long before = leased();
        w.claim(r.id);
        if (!r.tasks.queued.isEmpty() || leased() != before) {
          w.fail(r + " slept while a claim could find work");
        }
      }
    }
    w.fail("not every message is sent or dead after " + rounds + " rounds: " + w.store.rows());
  }

  private long leased() {
    return w.store.rows().stream().filter(row -> row.claimToken() != null).count();
  }

  /** Delivers, runs, writes and claims on wake-ups until nothing is left to do, time standing. */
  private void settleWhileWoken() {
    boolean busy = true;
    for (int turns = 0; busy; turns++) {
      w.afterStep();
      if (turns == MAX_TURNS) {
        w.fail("still busy after " + MAX_TURNS + " turns with time standing still");
      }
      busy = false;
      while (!w.open.isEmpty()) {
        w.complete(0, 0);
        busy = true;
      }
      for (EngineRelay r : w.relays) {
        while (!r.tasks.queued.isEmpty()) {
          r.tasks.queued.remove(0).run();
          busy = true;
        }
        if (r.engine.hasOutcomes()) {
          r.engine.completeOnce();
          busy = true;
        }
        if (r.engine.takeWakeup() || !r.claimed || r.again) {
          w.claim(r.id);
          busy = true;
        }
      }
    }
  }

  /** A message is delivered twice only after a crash or a stall (a window each) or a time-out. */
  private void checkDuplicates() {
    int twice = 0;
    for (int n : w.deliveries.values()) {
      twice += n - 1;
    }
    int bound = (w.crashes + w.stalls) * EngineRelay.MAX_IN_FLIGHT + w.timedOut;
    if (twice > bound) {
      w.fail(twice + " deliveries twice, more than " + bound);
    }
  }
}
