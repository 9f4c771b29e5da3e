package dev.jooqoutbox.internal.relay;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.jooqoutbox.relay.AsyncOutboxHandler;
import dev.jooqoutbox.relay.OutboxReconciler;
import dev.jooqoutbox.relay.RetryPolicy;
import dev.jooqoutbox.testing.ManualTimers;
import dev.jooqoutbox.testing.MutableClock;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * One relay of {@link EngineWorld}: a real {@link RelayEngine} whose lanes run on a queue of tasks
 * the world runs one at a time, whose timers are {@link ManualTimers} on the world's clock, and
 * whose producer and completer the world steps. Until it crashes; a restart is a new one.
 */
final class EngineRelay {

  static final Duration LEASE = Duration.ofSeconds(10);
  static final Duration MAX_HANDLING = Duration.ofSeconds(4);
  static final Duration POLL = Duration.ofSeconds(1);
  static final int MAX_IN_FLIGHT = 8;
  static final int MAX_ATTEMPTS = 5;
  private static final ObjectMapper MAPPER = new ObjectMapper();

  /** The lanes' handler threads: tasks the world runs one at a time, in the order steps pick. */
  static final class Tasks implements HandlerExecutor {
    final List<Runnable> queued = new ArrayList<>();
    boolean shut;

    @Override
    public void execute(Runnable task) {
      if (shut) {
        throw new RejectedExecutionException("crashed");
      }
      queued.add(task);
    }

    @Override
    public void abandoned() {}

    @Override
    public void recovered() {}

    @Override
    public boolean shutdown(long millis) {
      shut = true;
      return true;
    }
  }

  final int id;
  final int incarnation;
  final Tasks tasks = new Tasks();
  final TokenCheckedStore store;
  final boolean skewed;
  final ManualTimers timers;
  final RelayEngine engine;
  boolean crashed;
  // A producer claims as soon as it starts, before any wake-up, and again at once after a claim
  // that may have left work.
  boolean claimed;
  boolean again;
  // Its timers stand still (a stalled timer thread: no beat, no time-out); when it last did.
  boolean stalled;
  Instant lastStalled = Instant.MIN;
  private int claims;

  /**
   * @param skew how far this relay's clock is ahead of the world's (its timers keep the world's)
   * @param handler the handler of topic "t" for this relay
   * @param faults test-only switches of the engine ({@code AggregateOrder.Fault}, {@code
   *     Heartbeat.Fault})
   */
  EngineRelay(
      int id,
      int incarnation,
      MutableClock clock,
      Duration skew,
      TokenCheckedStore store,
      Function<EngineRelay, AsyncOutboxHandler> handler,
      OutboxReconciler reconciler,
      Set<? extends Enum<?>> faults) {
    this.id = id;
    this.incarnation = incarnation;
    this.store = store;
    this.skewed = !skew.isZero();
    this.timers = new ManualTimers(clock);
    this.engine =
        new RelayEngine(
            config(Clock.offset(clock, skew), handler.apply(this), reconciler),
            store,
            tasks,
            only(AggregateOrder.Fault.class, faults),
            only(Heartbeat.Fault.class, faults));
    engine.startTimers();
  }

  private static <F extends Enum<F>> Set<F> only(Class<F> type, Set<? extends Enum<?>> faults) {
    Set<F> of = EnumSet.noneOf(type);
    faults.stream().filter(type::isInstance).map(type::cast).forEach(of::add);
    return of;
  }

  private RelayConfig config(Clock clock, AsyncOutboxHandler handler, OutboxReconciler reconciler) {
    return new RelayConfig(
            DSL.using(SQLDialect.SQLITE), // not used: the engine's store is the model
            Map.of("t", handler),
            new RelayConfig.Claiming(4, 2, MAX_IN_FLIGHT, POLL, LEASE, false, this::nextToken),
            new RelayConfig.Handling(4, MAX_HANDLING, Duration.ofSeconds(1)),
            new RelayConfig.Retries(
                new RetryPolicy(MAX_ATTEMPTS, Duration.ofMillis(200), Duration.ofSeconds(1)),
                Map.of()),
            new RelayConfig.Upkeep(Duration.ofHours(1), Duration.ofHours(1), Duration.ofHours(1)),
            new RelayConfig.Reconciling(
                Map.of("t", reconciler), Duration.ofMillis(200), Duration.ofSeconds(2)),
            clock,
            MAPPER,
            null,
            null,
            timers)
        .validate();
  }

  private String nextToken() {
    return "r" + id + "." + incarnation + "." + ++claims;
  }

  @Override
  public String toString() {
    return "r" + id + "." + incarnation;
  }
}
