package dev.jooqoutbox.internal.relay;

import java.time.Duration;
import java.util.function.IntSupplier;

/**
 * What the relay reports. The Micrometer implementation lives in its own class so that Micrometer
 * stays an optional dependency: without a registry this no-op is used and no Micrometer class is
 * loaded.
 */
public interface RelayMetrics {

  RelayMetrics NONE = new RelayMetrics() {};

  default void sent(String topic) {}

  default void failed(String topic) {}

  default void deadLettered(String topic) {}

  /** A handler could not learn the outcome: held for reconciliation. */
  default void unknown(String topic) {}

  /** A handler asked for its next attempt at a chosen time: not a failure. */
  default void rescheduled(String topic) {}

  /** A reconciler answered {@code result} (sent, retry, dead, unknown) or threw (error). */
  default void reconciled(String topic, String result) {}

  /** The outcome-unknown count, refreshed with the backlog. */
  default void unknownCount(long count) {}

  default void handlerDuration(String topic, Duration duration) {}

  /** A success settled after its lease had run out (the relay was paused or slow). */
  default void late(String topic) {}

  /** A handler interrupted for running past the maximum handling time. */
  default void timedOut(String topic) {}

  /** Messages claimed and not yet settled, read whenever a scrape asks. */
  default void inFlight(IntSupplier inFlight) {}

  /** The topics this relay handles that an operator paused, as it last read them. */
  default void pausedTopics(IntSupplier paused) {}

  default void claimDuration(Duration duration) {}

  default void batchSize(int size) {}

  default void backlog(long pending, Duration oldestPendingAge) {}

  /** Removes what was registered; the relay reports nothing after it. */
  default void close() {}
}
