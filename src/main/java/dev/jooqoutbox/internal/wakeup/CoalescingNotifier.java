package dev.jooqoutbox.internal.wakeup;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends the notification that wakes relays in other processes after commits, coalesced: the first
 * request after a quiet spell is sent at once, requests while a send runs or within {@link
 * #INTERVAL} after it are folded into one more send at the end of that interval. So at most one
 * notification per interval leaves, and a commit's notification leaves at most one interval plus
 * the time of one send after it. Sends run on one daemon thread for the whole JVM, never on a
 * writer's thread and never inside a writer's transaction.
 */
final class CoalescingNotifier {

  /** The shortest time between two notifications of one notifier. */
  static final Duration INTERVAL = Duration.ofMillis(5);

  private static final Logger log = LoggerFactory.getLogger(CoalescingNotifier.class);

  private static final ScheduledExecutorService SENDER =
      Executors.newSingleThreadScheduledExecutor(
          runnable -> {
            Thread thread = new Thread(runnable, "outbox-notify");
            thread.setDaemon(true);
            return thread;
          });

  private final Runnable send;
  private boolean busy; // a send runs or its interval has not passed; guarded by this
  private boolean again; // a request came while busy; guarded by this

  /** {@code send} sends one notification; a failure is logged and the next request tries again. */
  CoalescingNotifier(Runnable send) {
    this.send = send;
  }

  /** Asks for a notification soon; never blocks. */
  void request() {
    synchronized (this) {
      if (busy) {
        again = true;
        return;
      }
      busy = true;
    }
    SENDER.execute(this::sendAndWait);
  }

  private void sendAndWait() {
    try {
      send.run();
    } catch (RuntimeException e) {
      log.warn("outbox could not notify relays in other processes; they will poll", e);
    }
    SENDER.schedule(this::intervalPassed, INTERVAL.toNanos(), TimeUnit.NANOSECONDS);
  }

  private void intervalPassed() {
    synchronized (this) {
      if (!again) {
        busy = false;
        return;
      }
      again = false;
    }
    sendAndWait();
  }
}
