package dev.jooqoutbox.internal.relay;

import java.time.Duration;

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

  default void handlerDuration(String topic, Duration duration) {}

  default void claimDuration(Duration duration) {}

  default void batchSize(int size) {}

  default void backlog(long pending, Duration oldestPendingAge) {}

  /** Removes what was registered; the relay reports nothing after it. */
  default void close() {}
}
