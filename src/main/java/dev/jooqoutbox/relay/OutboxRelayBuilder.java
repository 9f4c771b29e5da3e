package dev.jooqoutbox.relay;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.OutboxName;
import dev.jooqoutbox.internal.relay.RelayConfig;
import dev.jooqoutbox.internal.relay.RelayTimers;
import dev.jooqoutbox.internal.relay.Settings;
import dev.jooqoutbox.internal.relay.SyncHandler;
import dev.jooqoutbox.internal.repository.OutboxContext;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.jooq.DSLContext;

/**
 * Settings of an {@link OutboxRelay}. Every setting has a default except the handlers; {@link
 * #build()} checks them all and names the first invalid one.
 */
public final class OutboxRelayBuilder {

  private static final Pattern TOPIC = Pattern.compile("[A-Za-z0-9._:-]{1,255}");

  private final DSLContext dsl;
  private final Map<String, AsyncOutboxHandler> handlers = new LinkedHashMap<>();
  // Every default from the one list of settings (Settings), which the Spring properties use too.
  private int batchSize = Settings.BATCH_SIZE.defaultValue();
  private int maxRun = Settings.MAX_RUN.defaultValue();
  private Integer maxInFlight; // null: the default, from the batch size
  private Duration maxHandlingTime = Settings.MAX_HANDLING_TIME.defaultValue();
  private Duration gaugeInterval = Settings.GAUGE_INTERVAL.defaultValue();
  private Duration pollInterval = Settings.POLL_INTERVAL.defaultValue();
  private Duration lease = Settings.LEASE.defaultValue();
  private int maxAttempts = Settings.MAX_ATTEMPTS.defaultValue();
  private Duration backoffInitial = Settings.BACKOFF_INITIAL.defaultValue();
  private Duration backoffMax = Settings.BACKOFF_MAX.defaultValue();
  private Duration retention = Settings.RETENTION.defaultValue();
  private Duration purgeInterval = Settings.PURGE_INTERVAL.defaultValue();
  private int handlerConcurrency = Settings.HANDLER_CONCURRENCY.defaultValue();
  private Duration shutdownTimeout = Settings.SHUTDOWN_TIMEOUT.defaultValue();
  private Clock clock = Clock.systemUTC();
  private Supplier<String> claimTokens = () -> UUID.randomUUID().toString();
  private ObjectMapper mapper = new ObjectMapper();
  private Object meterRegistry; // a MeterRegistry; Object keeps Micrometer optional
  private Object openTelemetry; // an OpenTelemetry; Object keeps OpenTelemetry optional
  private boolean listen = true;
  private final Map<String, RetryPolicy> retryPolicies = new LinkedHashMap<>();
  private final Map<String, OutboxReconciler> reconcilers = new LinkedHashMap<>();
  private Duration reconcileInitial = Settings.RECONCILE_INITIAL.defaultValue();
  private Duration reconcileMax = Settings.RECONCILE_MAX.defaultValue();
  private OutboxName name = OutboxName.DEFAULT;
  private RelayTimers timers; // null: threads of the relay's own

  OutboxRelayBuilder(DSLContext dsl) {
    this.dsl = Objects.requireNonNull(dsl, "dsl");
  }

  /**
   * Registers the handler of {@code topic}: it runs on one of the relay's handler threads, and
   * returning marks the message sent. Only topics with a handler are claimed.
   *
   * <p>Order is per aggregate across every topic: a pending message of a topic this relay has no
   * handler for holds back the later messages of its aggregate, whatever their topic, until a relay
   * that handles it delivers it. Services that share one outbox table should not share aggregates
   * (docs/guarantees.md, "Order per aggregate").
   */
  public OutboxRelayBuilder handler(String topic, OutboxHandler handler) {
    return register(topic, new SyncHandler(Objects.requireNonNull(handler, "handler")));
  }

  /**
   * Registers an asynchronous handler of {@code topic}: the message is sent when its stage
   * completes normally. The relay keeps many such messages in flight (see {@link #maxInFlight}),
   * one at a time per aggregate. For publishers to brokers.
   */
  public OutboxRelayBuilder asyncHandler(String topic, AsyncOutboxHandler handler) {
    return register(topic, Objects.requireNonNull(handler, "handler"));
  }

  private OutboxRelayBuilder register(String topic, AsyncOutboxHandler handler) {
    if (topic == null || !TOPIC.matcher(topic).matches()) {
      throw new IllegalArgumentException(
          "handler topic must be 1-255 characters of A-Z a-z 0-9 . _ : -, was " + topic);
    }
    if (handlers.putIfAbsent(topic, handler) != null) {
      throw new IllegalArgumentException("a handler for topic " + topic + " is already set");
    }
    return this;
  }

  /** Most messages one claim takes (1-10000). Default 100. */
  public OutboxRelayBuilder batchSize(int batchSize) {
    this.batchSize = batchSize;
    return this;
  }

  /**
   * Most consecutive messages of one aggregate a claim takes as one lane (1-10000), delivered in
   * seq order, one after the other. More serves a few busy aggregates faster; 1 claims only the
   * oldest pending message of each. Default 10.
   */
  public OutboxRelayBuilder maxRun(int maxRun) {
    this.maxRun = maxRun;
    return this;
  }

  /**
   * Most messages claimed and not yet settled at once (1-1000000): bounds the relay's memory and
   * what a crash can deliver twice. The relay claims again as soon as there is room. Default: five
   * batches ({@code 5 * batchSize}), at least 500; 500 with the default batch size. A window of a
   * single batch would make the relay wait for a whole claim to settle before it claims again.
   */
  public OutboxRelayBuilder maxInFlight(int maxInFlight) {
    this.maxInFlight = maxInFlight;
    return this;
  }

  /**
   * Longest a handler may run (or an asynchronous handler's stage stay incomplete): past it the
   * handler thread is interrupted and the attempt fails. Default 5 minutes.
   */
  public OutboxRelayBuilder maxHandlingTime(Duration maxHandlingTime) {
    this.maxHandlingTime = maxHandlingTime;
    return this;
  }

  /** How often the backlog gauges are read from the database. Default 5 s. */
  public OutboxRelayBuilder gaugeInterval(Duration gaugeInterval) {
    this.gaugeInterval = gaugeInterval;
    return this;
  }

  /** Sleep after a claim that found nothing ready. Default 500 ms. */
  public OutboxRelayBuilder pollInterval(Duration pollInterval) {
    this.pollInterval = pollInterval;
    return this;
  }

  /**
   * How long a claim owns its messages before another relay may take them. The relay extends the
   * lease of its messages in flight once a sixth of it has gone, and every sixth after that, so it
   * bounds how long a crashed relay's messages wait, not how long a handler may run. Default 30 s.
   */
  public OutboxRelayBuilder lease(Duration lease) {
    this.lease = lease;
    return this;
  }

  /** Attempts before a message is dead-lettered (at least 1). Default 10. */
  public OutboxRelayBuilder maxAttempts(int maxAttempts) {
    this.maxAttempts = maxAttempts;
    return this;
  }

  /** Backoff before a retry: doubles from {@code initial} up to {@code max}, equal jitter. */
  public OutboxRelayBuilder backoff(Duration initial, Duration max) {
    this.backoffInitial = initial;
    this.backoffMax = max;
    return this;
  }

  /**
   * The retry policy of {@code topic}, which must have a handler: its maximum attempts and backoff
   * instead of {@link #maxAttempts} and {@link #backoff}, which stay the defaults of the other
   * topics. Checked by {@link #build()} like those.
   */
  public OutboxRelayBuilder retryPolicy(String topic, RetryPolicy policy) {
    retryPolicies.put(
        Objects.requireNonNull(topic, "topic"), Objects.requireNonNull(policy, "policy"));
    return this;
  }

  /**
   * The reconciler of {@code topic}, which must have a handler: asked, with {@link
   * #reconcileBackoff}, what became of the topic's outcome-unknown messages (see {@link
   * OutcomeUnknownException}). Without one, they wait for an operator.
   */
  public OutboxRelayBuilder reconciler(String topic, OutboxReconciler reconciler) {
    Objects.requireNonNull(reconciler, "reconciler");
    if (reconcilers.putIfAbsent(Objects.requireNonNull(topic, "topic"), reconciler) != null) {
      throw new IllegalArgumentException("a reconciler for topic " + topic + " is already set");
    }
    return this;
  }

  /**
   * When reconcilers are asked about an outcome-unknown message: {@code initial} after it became
   * unknown, then each time after as long again as it has been unknown, at most {@code max} apart.
   * Default 10 s and 10 minutes.
   */
  public OutboxRelayBuilder reconcileBackoff(Duration initial, Duration max) {
    this.reconcileInitial = initial;
    this.reconcileMax = max;
    return this;
  }

  /** How long sent messages and inbox rows are kept before the purge. Default 7 days. */
  public OutboxRelayBuilder retention(Duration retention) {
    this.retention = retention;
    return this;
  }

  /** How often the worker purges. Default 1 hour. */
  public OutboxRelayBuilder purgeInterval(Duration purgeInterval) {
    this.purgeInterval = purgeInterval;
    return this;
  }

  /**
   * Handler threads: lanes of different aggregates run in parallel on them (1-1000). A hung handler
   * occupies one until the maximum handling time. Default 4.
   */
  public OutboxRelayBuilder handlerConcurrency(int handlerConcurrency) {
    this.handlerConcurrency = handlerConcurrency;
    return this;
  }

  /** Longest {@link OutboxRelay#close()} waits for running handlers. Default 30 s. */
  public OutboxRelayBuilder shutdownTimeout(Duration shutdownTimeout) {
    this.shutdownTimeout = shutdownTimeout;
    return this;
  }

  /** Source of time for leases, backoff and purge cutoffs. Default: the UTC system clock. */
  public OutboxRelayBuilder clock(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
    return this;
  }

  /** Source of claim tokens; each claim needs a unique one. Default: random UUIDs. */
  public OutboxRelayBuilder claimTokens(Supplier<String> claimTokens) {
    this.claimTokens = Objects.requireNonNull(claimTokens, "claimTokens");
    return this;
  }

  /** Reads payloads for {@link OutboxMessage#payloadAs}. Default: {@code new ObjectMapper()}. */
  public OutboxRelayBuilder objectMapper(ObjectMapper mapper) {
    this.mapper = Objects.requireNonNull(mapper, "objectMapper");
    return this;
  }

  /** Publishes the relay's metrics there (Micrometer is an optional dependency). */
  public OutboxRelayBuilder meterRegistry(MeterRegistry registry) {
    this.meterRegistry = Objects.requireNonNull(registry, "meterRegistry");
    return this;
  }

  /**
   * Runs each handler attempt inside a {@code CONSUMER} span of {@code openTelemetry} (an optional
   * dependency) that continues the trace recorded in the message's headers, or starts a new one;
   * current while the handler runs, ended when the attempt is decided, with status {@code ERROR}
   * and the exception when it fails or times out. Default: {@code GlobalOpenTelemetry.getOrNoop()},
   * read at each attempt, when the API is on the class path. Span name and attributes:
   * docs/guide.md, "Tracing".
   */
  public OutboxRelayBuilder openTelemetry(OpenTelemetry openTelemetry) {
    this.openTelemetry = Objects.requireNonNull(openTelemetry, "openTelemetry");
    return this;
  }

  /**
   * On PostgreSQL, whether to {@code LISTEN} on a dedicated connection and wake at each commit of a
   * notifying writer. Default true; ignored elsewhere.
   */
  public OutboxRelayBuilder listen(boolean listen) {
    this.listen = listen;
    return this;
  }

  /**
   * Which outbox of the database this relay delivers, purges and reconciles: only that outbox's
   * messages and inbox records (see {@link OutboxName}). Default {@link OutboxName#DEFAULT}.
   */
  public OutboxRelayBuilder name(OutboxName name) {
    this.name = Objects.requireNonNull(name, "name");
    return this;
  }

  /**
   * Where the heartbeat and the watchdog run and the time they measure: for tests of this package,
   * which move time by hand instead of sleeping. Not part of the API.
   */
  OutboxRelayBuilder timers(RelayTimers timers) {
    this.timers = Objects.requireNonNull(timers, "timers");
    return this;
  }

  /**
   * Builds the relay, not yet started: {@link OutboxRelay#start} starts its threads, {@link
   * OutboxRelay#drainOnce} delivers on the caller's thread instead. Checks every setting; touches
   * no database.
   *
   * @throws IllegalArgumentException naming the first invalid setting and its value
   */
  public OutboxRelay build() {
    return new OutboxRelay(
        new RelayConfig(
                OutboxContext.of(dsl, name),
                handlers,
                new RelayConfig.Claiming(
                    batchSize,
                    maxRun,
                    maxInFlight != null ? maxInFlight : Settings.defaultMaxInFlight(batchSize),
                    pollInterval,
                    lease,
                    listen,
                    claimTokens),
                new RelayConfig.Handling(handlerConcurrency, maxHandlingTime, shutdownTimeout),
                new RelayConfig.Retries(
                    new RetryPolicy(maxAttempts, backoffInitial, backoffMax), retryPolicies),
                new RelayConfig.Upkeep(retention, purgeInterval, gaugeInterval),
                new RelayConfig.Reconciling(reconcilers, reconcileInitial, reconcileMax),
                clock,
                mapper,
                meterRegistry,
                openTelemetry,
                timers)
            .validate(),
        name);
  }
}
