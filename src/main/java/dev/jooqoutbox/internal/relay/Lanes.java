package dev.jooqoutbox.internal.relay;

import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.internal.tracing.Tracing;
import dev.jooqoutbox.relay.AsyncOutboxHandler;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * What every lane shares: the handlers, the threads, the timer for the maximum handling time, the
 * completer its outcomes go to, the tracing of its attempts, whether the relay is stopping, and the
 * order of each aggregate. Also cuts a claim into lanes and does what the order decides.
 */
final class Lanes {

  final RelayConfig config;
  final HandlerExecutor threads;
  final Watchdog watchdog;
  final Completer completer;
  final RelayMetrics metrics;
  final Tracing tracing;
  final BooleanSupplier stopping;
  final AggregateOrder<Lane> order;

  Lanes(
      RelayConfig config,
      HandlerExecutor threads,
      Watchdog watchdog,
      Completer completer,
      RelayMetrics metrics,
      Tracing tracing,
      BooleanSupplier stopping,
      AggregateOrder<Lane> order) {
    this.config = config;
    this.threads = threads;
    this.watchdog = watchdog;
    this.completer = completer;
    this.metrics = metrics;
    this.tracing = tracing;
    this.stopping = stopping;
    this.order = order;
  }

  AsyncOutboxHandler handler(String topic) {
    return config.handlers().get(topic);
  }

  /**
   * One lane per aggregate, each holding its messages in seq order, the lanes in the order of their
   * first message. {@code claimed} is in seq order, as the claim returns it.
   */
  List<Lane> cut(String token, List<OutboxMessage> claimed, Runnable onLaneEnd) {
    Map<String, List<OutboxMessage>> byAggregate = new LinkedHashMap<>();
    for (OutboxMessage m : claimed) {
      byAggregate.computeIfAbsent(m.aggregate(), a -> new ArrayList<>()).add(m);
    }
    List<Lane> lanes = new ArrayList<>(byAggregate.size());
    byAggregate.values().forEach(run -> lanes.add(new Lane(this, token, run, onLaneEnd)));
    return lanes;
  }

  /** Starts {@code lane}, a run the last claim took, leaves it waiting, or gives it back. */
  void admit(Lane lane) {
    switch (order.admit(lane)) {
      case START -> lane.start();
      case GIVE_BACK -> lane.giveBackUnstarted();
      case WAIT -> {} // started or given back when the run before it ends
    }
  }

  /** Starts the lane that waited behind one that ended, or gives it back. */
  void follow(AggregateOrder.Follower<Lane> follower) {
    if (follower.start()) {
      follower.run().start();
    } else {
      // Behind a message that failed or was given back: not deliverable now.
      follower.run().giveBackUnstarted();
    }
  }
}
