package dev.jooqoutbox.internal.micrometer;

import dev.jooqoutbox.internal.relay.RelayMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;

/**
 * Relay metrics on a Micrometer registry. Each meter is registered once, on first use, and removed
 * from the registry when the relay closes. The gauges read values the relay refreshes, so a scrape
 * never queries the database.
 *
 * <ul>
 *   <li>{@code outbox.relay.messages} (counter; tags {@code topic}, {@code result} = sent, failed,
 *       dead, unknown (the handler could not learn the outcome), rescheduled (at the handler's
 *       request: not a failure))
 *   <li>{@code outbox.relay.reconciled} (counter; tags {@code topic}, {@code result} = sent, retry,
 *       dead, unknown (still), error (the reconciler threw))
 *   <li>{@code outbox.relay.late} (counter; tag {@code topic}): successes settled after their lease
 *       had run out
 *   <li>{@code outbox.relay.timeouts} (counter; tag {@code topic}): handlers interrupted after the
 *       maximum handling time
 *   <li>{@code outbox.relay.in.flight} (gauge, messages): claimed and not yet settled
 *   <li>{@code outbox.relay.handler} (timer; tag {@code topic})
 *   <li>{@code outbox.relay.claim} (timer)
 *   <li>{@code outbox.relay.batch.size} (distribution summary)
 *   <li>{@code outbox.pending} (gauge, messages) and {@code outbox.oldest.pending.age} (gauge,
 *       seconds: the relay's lag)
 *   <li>{@code outbox.unknown} (gauge, messages): outcome unknown, waiting for reconciliation
 * </ul>
 */
public final class MicrometerRelayMetrics implements RelayMetrics {

  private final MeterRegistry registry;
  private final List<Meter> registered = new CopyOnWriteArrayList<>();
  private final Map<String, Counter> counters = new ConcurrentHashMap<>();
  private final Map<String, Timer> handlerTimers = new ConcurrentHashMap<>();
  private final Timer claimTimer;
  private final DistributionSummary batchSizes;
  private final AtomicLong pending = new AtomicLong();
  private final AtomicLong oldestAgeMillis = new AtomicLong();
  private final AtomicLong unknown = new AtomicLong();

  /**
   * The metrics on {@code registry}, a {@link MeterRegistry}: what {@code RelayEngine} calls by
   * name (it sits below this package), typed {@code Object} so the call names no Micrometer class.
   */
  public static RelayMetrics on(Object registry) {
    return new MicrometerRelayMetrics((MeterRegistry) registry);
  }

  public MicrometerRelayMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.claimTimer =
        keep(
            Timer.builder("outbox.relay.claim")
                .description("Time to claim a batch")
                .register(registry));
    this.batchSizes =
        keep(
            DistributionSummary.builder("outbox.relay.batch.size")
                .description("Messages per claimed batch")
                .register(registry));
    keep(
        Gauge.builder("outbox.pending", pending, AtomicLong::get)
            .description("Messages not yet sent or dead")
            .baseUnit("messages")
            .register(registry));
    keep(
        Gauge.builder("outbox.oldest.pending.age", oldestAgeMillis, v -> v.get() / 1000.0)
            .description("Age of the oldest pending message")
            .baseUnit("seconds")
            .register(registry));
    keep(
        Gauge.builder("outbox.unknown", unknown, AtomicLong::get)
            .description("Messages whose outcome is unknown, waiting for reconciliation")
            .baseUnit("messages")
            .register(registry));
  }

  private <M extends Meter> M keep(M meter) {
    registered.add(meter);
    return meter;
  }

  private Counter messages(String topic, String result) {
    return counter(
        "outbox.relay.messages", "Messages handled by the relay, by result", topic, result);
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
  public void unknown(String topic) {
    messages(topic, "unknown").increment();
  }

  @Override
  public void rescheduled(String topic) {
    messages(topic, "rescheduled").increment();
  }

  @Override
  public void reconciled(String topic, String result) {
    counter(
            "outbox.relay.reconciled",
            "Outcome-unknown messages a reconciler was asked about",
            topic,
            result)
        .increment();
  }

  @Override
  public void late(String topic) {
    counter("outbox.relay.late", "Successes settled after their lease ran out", topic).increment();
  }

  @Override
  public void timedOut(String topic) {
    counter("outbox.relay.timeouts", "Handlers interrupted past the maximum handling time", topic)
        .increment();
  }

  @Override
  public void inFlight(IntSupplier inFlight) {
    gauge("outbox.relay.in.flight", "Messages claimed and not yet settled", "messages", inFlight);
  }

  @Override
  public void pausedTopics(IntSupplier paused) {
    gauge(
        "outbox.relay.paused.topics",
        "Topics this relay handles that an operator paused",
        "topics",
        paused);
  }

  private void gauge(String name, String description, String unit, IntSupplier value) {
    keep(
        Gauge.builder(name, value, IntSupplier::getAsInt)
            .description(description)
            .baseUnit(unit)
            // Held strongly: a gauge keeps a weak reference, and nothing else holds the supplier.
            .strongReference(true)
            .register(registry));
  }

  private Counter counter(String name, String description, String topic) {
    return counter(name, description, topic, null);
  }

  /** The counter {@code name} of {@code topic} and, unless null, {@code result}; made once. */
  private Counter counter(String name, String description, String topic, String result) {
    return counters.computeIfAbsent(
        name + '\0' + topic + '\0' + result,
        key -> {
          Counter.Builder builder =
              Counter.builder(name).description(description).tag("topic", topic);
          return keep(
              (result == null ? builder : builder.tag("result", result)).register(registry));
        });
  }

  @Override
  public void handlerDuration(String topic, Duration duration) {
    handlerTimers
        .computeIfAbsent(
            topic,
            t ->
                keep(
                    Timer.builder("outbox.relay.handler")
                        .description("Time a handler took")
                        .tag("topic", t)
                        .register(registry)))
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

  @Override
  public void unknownCount(long count) {
    unknown.set(count);
  }

  @Override
  public void close() {
    registered.forEach(registry::remove);
    registered.clear();
  }
}
