package dev.jooqoutbox.internal.relay;

import dev.jooqoutbox.internal.repository.RelayStore;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.slf4j.Logger;

/**
 * The topics an operator paused, as this relay last read them: read when the relay starts and then
 * once a poll interval on a timer of its own, so that every relay of the outbox stops claiming a
 * paused topic within a poll interval of the pause, and claims it again within one of the resume (a
 * resume wakes the producer at once). While the table cannot be read the last set read stays.
 */
final class PausedTopics {

  private static final Logger log = RelayLog.LOG;

  private final RelayStore store;
  private final Runnable onResume;
  private volatile Set<String> paused = Set.of();
  private boolean failing;

  PausedTopics(RelayStore store, Runnable onResume) {
    this.store = store;
    this.onResume = onResume;
  }

  /** Reads the paused topics now, then every {@code poll} on its own timer. */
  void start(RelayTimers timers, Duration poll) {
    refresh();
    timers.timer("paused-topics").every(poll, poll, this::refresh);
  }

  void refresh() {
    Set<String> read;
    try {
      read = store.pausedTopics();
    } catch (RuntimeException e) {
      if (!failing) {
        log.warn("outbox relay could not read the paused topics; it keeps the last ones read", e);
      }
      failing = true;
      return;
    }
    failing = false;
    Set<String> before = paused;
    paused = Set.copyOf(read);
    if (!read.containsAll(before)) {
      onResume.run();
    }
  }

  /** Of {@code handled}, the topics not paused: what the next claim asks for. */
  Set<String> claimable(Set<String> handled) {
    Set<String> now = paused;
    if (now.isEmpty()) {
      return handled;
    }
    Set<String> claimable = new HashSet<>(handled);
    claimable.removeAll(now);
    return claimable;
  }

  /** The paused topics as last read. */
  Set<String> paused() {
    return paused;
  }
}
