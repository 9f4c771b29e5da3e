package dev.jooqoutbox.internal.relay;

import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.internal.repository.RelayStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingDeque;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;

/**
 * Writes outcomes as they arrive, in small batches: whatever lanes report within a couple of
 * milliseconds (at most {@value #MAX_BATCH}) becomes one statement per claim token for the
 * successes and one per failure, well inside the lease. No lane waits for these writes, and no
 * write waits for a slow lane. A write that fails is retried (with backoff) until it succeeds or
 * the relay has closed; each statement is a compare-and-swap on the claim token, so a retry after a
 * partial write changes nothing twice.
 */
final class Completer {

  private static final Logger log = RelayLog.LOG;
  static final int MAX_BATCH = 200;
  private static final long LINGER_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
  private static final Duration MAX_ERROR_DELAY = Duration.ofSeconds(30);

  private final RelayConfig config;
  private final RelayStore store;
  private final RelayMetrics metrics;
  private final MessageFailures failures;
  private final InFlight inFlight;
  private final SettleListener onSettled;
  // Cuts the backoff after a failed write short when the relay closes.
  private final Wakeup backoff;
  private final BlockingDeque<Outcome> queue = new LinkedBlockingDeque<>();
  private volatile boolean closing;
  private volatile Thread thread;

  Completer(
      RelayConfig config,
      RelayStore store,
      RelayMetrics metrics,
      InFlight inFlight,
      RelayTimers timers,
      SettleListener onSettled) {
    this.config = config;
    this.store = store;
    this.metrics = metrics;
    this.failures = new MessageFailures(config, store, metrics);
    this.inFlight = inFlight;
    this.onSettled = onSettled;
    this.backoff = new Wakeup(timers);
  }

  /** Told after each write of outcomes, on the completer's thread. */
  @FunctionalInterface
  interface SettleListener {
    /**
     * The outcomes of {@code messages}, of claim {@code token}, are written; {@code pending} when
     * they are pending again (released, backing off, rescheduled or of unknown outcome), so that
     * each still holds its aggregate back, rather than sent or dead.
     */
    void settled(String token, List<OutboxMessage> messages, boolean pending);
  }

  void submit(Outcome outcome) {
    queue.add(outcome);
  }

  void start() {
    Thread t = RelayThreads.daemon("outbox-completer-").newThread(this::run);
    thread = t;
    t.start();
  }

  /** Writes everything reported so far, then stops; waits at most {@code timeout}. */
  void close(Duration timeout) throws InterruptedException {
    closing = true;
    backoff.signal(); // a write backing off after an error is tried once more at once
    Thread t = thread;
    if (t != null) {
      t.join(Math.max(1, timeout.toMillis()));
      if (t.isAlive()) {
        log.warn(
            "outbox relay could not write {} outcomes before closing; their messages will be"
                + " delivered again after their lease",
            queue.size());
        t.interrupt();
      }
    }
  }

  /** Whether outcomes wait to be written. */
  boolean hasOutcomes() {
    return !queue.isEmpty();
  }

  /**
   * Writes everything reported so far on the calling thread; database errors propagate. Returns how
   * many messages it settled other than by giving them back (sent, retried, dead).
   */
  int flushNow() {
    if (queue.isEmpty()) {
      return 0;
    }
    List<Outcome> pending = new ArrayList<>();
    queue.drainTo(pending);
    int handled = 0;
    for (Outcome o : pending) {
      handled += o instanceof Outcome.Released ? 0 : o.count();
    }
    try {
      write(pending);
    } catch (RuntimeException e) {
      // Keep what was not written, in order, for the next flush: dropping it would leave those
      // messages leased (and extended by the heartbeat) for as long as the relay lives.
      for (int i = pending.size() - 1; i >= 0; i--) {
        queue.addFirst(pending.get(i));
      }
      throw e;
    }
    return handled;
  }

  private void run() {
    List<Outcome> batch = new ArrayList<>();
    Duration errorDelay = Duration.ZERO;
    try {
      while (true) {
        if (batch.isEmpty()) {
          Outcome first = queue.poll(50, TimeUnit.MILLISECONDS);
          if (first == null) {
            if (closing) {
              return;
            }
            continue;
          }
          batch.add(first);
          long lingerEnd = System.nanoTime() + LINGER_NANOS;
          while (batch.size() < MAX_BATCH) {
            Outcome next = queue.poll(lingerEnd - System.nanoTime(), TimeUnit.NANOSECONDS);
            if (next == null) {
              break;
            }
            batch.add(next);
          }
        }
        try {
          write(batch);
          errorDelay = Duration.ZERO;
        } catch (RuntimeException e) {
          errorDelay = RelayThreads.nextErrorDelay(errorDelay, config.claiming().pollInterval());
          log.warn(
              "outbox relay could not settle {} messages; retrying in {} ms",
              batch.stream().mapToInt(Outcome::count).sum(),
              errorDelay.toMillis(),
              e);
          backoff.await(errorDelay);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Writes {@code batch}, removing each part from it as soon as its statement committed, so that a
   * failure part-way leaves exactly the unwritten rest.
   */
  private void write(List<Outcome> batch) {
    Map<String, List<Outcome.Sent>> sentByToken = new LinkedHashMap<>();
    for (Outcome o : batch) {
      if (o instanceof Outcome.Sent sent) {
        sentByToken.computeIfAbsent(sent.token(), t -> new ArrayList<>()).add(sent);
      }
    }
    for (Map.Entry<String, List<Outcome.Sent>> e : sentByToken.entrySet()) {
      markSent(e.getKey(), e.getValue());
      // Not removeAll: that compares every outcome with every written one (records, so their
      // messages' payloads too), quadratic in the batch.
      batch.removeIf(o -> o instanceof Outcome.Sent sent && sent.token().equals(e.getKey()));
    }
    for (Iterator<Outcome> it = batch.iterator(); it.hasNext(); ) {
      Outcome o = it.next();
      if (o instanceof Outcome.Failed failed) {
        metrics.handlerDuration(failed.message().topic(), failed.took());
        boolean pending = failures.fail(failed.token(), failed.message(), failed.failure());
        settled(o.token(), List.of(failed.message()), pending);
      } else if (o instanceof Outcome.Exhausted exhausted) {
        failures.deadLetterExhausted(exhausted.token(), exhausted.message());
        settled(o.token(), List.of(exhausted.message()), false);
      } else if (o instanceof Outcome.Released released) {
        store.release(released.token(), seqs(released.messages()));
        settled(o.token(), released.messages(), true);
      }
      it.remove();
    }
  }

  private void markSent(String token, List<Outcome.Sent> sent) {
    Instant now = config.clock().instant();
    Instant leaseEnd = inFlight.leaseEnd(token);
    List<OutboxMessage> messages = sent.stream().map(Outcome.Sent::message).toList();
    if (leaseEnd != null && now.isAfter(leaseEnd)) {
      // Still marked if no other relay claimed them since (the token still matches): that avoids
      // a second delivery. Counted and logged, because another relay could have, any moment.
      messages.forEach(m -> metrics.late(m.topic()));
      log.warn(
          "outbox relay settles {} messages after their lease ran out at {} (the relay was"
              + " paused or its database slow); another relay may deliver them again",
          messages.size(),
          leaseEnd);
    }
    int marked = store.markSent(token, seqs(messages), now);
    if (marked < messages.size()) {
      log.warn(
          "outbox relay lost {} of {} messages to another relay before marking them sent (lease"
              + " {} too short?); they will be delivered again",
          messages.size() - marked,
          messages.size(),
          config.claiming().lease());
    }
    for (Outcome.Sent s : sent) {
      metrics.handlerDuration(s.message().topic(), s.took());
      metrics.sent(s.message().topic());
    }
    settled(token, messages, false);
  }

  private void settled(String token, List<OutboxMessage> messages, boolean pending) {
    inFlight.settled(token, seqs(messages));
    onSettled.settled(token, messages, pending);
  }

  private static List<Long> seqs(List<OutboxMessage> messages) {
    List<Long> seqs = new ArrayList<>(messages.size());
    messages.forEach(m -> seqs.add(m.seq()));
    return seqs;
  }
}
