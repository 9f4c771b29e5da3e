package dev.jooqoutbox.relay;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Relay metrics on a Micrometer registry. The gauges read values the worker refreshes between
 * polls, so a scrape never queries the database.
 *
 * <ul>
 *   <li>{@code outbox.relay.messages} (counter; tags {@code topic}, {@code result} = sent, failed,
 *       dead)
 *   <li>{@code outbox.relay.handler} (timer; tag {@code topic})
 *   <li>{@code outbox.relay.claim} (timer)
 *   <li>{@code outbox.relay.batch.size} (distribution summary)
 *   <li>{@code outbox.pending} (gauge, messages) and {@code outbox.oldest.pending.age} (gauge,
 *       seconds: the relay's lag)
 * </ul>
 */
final class MicrometerRelayMetrics implements RelayMetrics {

  private final MeterRegistry registry;
  private final Timer claimTimer;
  private final DistributionSummary batchSizes;
  private final AtomicLong pending = new AtomicLong();
  private final AtomicLong oldestAgeMillis = new AtomicLong();

  MicrometerRelayMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.claimTimer =
        Timer.builder("outbox.relay.claim").description("Time to claim a batch").register(registry);
    this.batchSizes =
        DistributionSummary.builder("outbox.relay.batch.size")
            .description("Messages per claimed batch")
            .register(registry);
    Gauge.builder("outbox.pending", pending, AtomicLong::get)
        .description("Messages not yet sent or dead")
        .baseUnit("messages")
        .register(registry);
    Gauge.builder("outbox.oldest.pending.age", oldestAgeMillis, v -> v.get() / 1000.0)
        .description("Age of the oldest pending message")
        .baseUnit("seconds")
        .register(registry);
  }

  private Counter messages(String topic, String result) {
    return Counter.builder("outbox.relay.messages")
        .description("Messages handled by the relay, by result")
        .tag("topic", topic)
        .tag("result", result)
        .register(registry);
  }

  @Override
  public void sent(String topic) {
    messages(topic, "sent").increment();
  }

  @Override
  public void failed(String topic) {
    messages(topic, "failed").increment();
  }

  @Override
  public void deadLettered(String topic) {
    messages(topic, "dead").increment();
  }

  @Override
  public void handlerDuration(String topic, Duration duration) {
    Timer.builder("outbox.relay.handler")
        .description("Time a handler took")
        .tag("topic", topic)
        .register(registry)
        .record(duration);
  }

  @Override
  public void claimDuration(Duration duration) {
    claimTimer.record(duration);
  }

  @Override
  public void batchSize(int size) {
    batchSizes.record(size);
  }

  @Override
  public void backlog(long pendingMessages, Duration oldestPendingAge) {
    pending.set(pendingMessages);
    oldestAgeMillis.set(oldestPendingAge.toMillis());
  }
}
