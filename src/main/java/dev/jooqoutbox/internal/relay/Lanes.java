package dev.jooqoutbox.internal.relay;

import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.internal.tracing.Tracing;
import dev.jooqoutbox.relay.AsyncOutboxHandler;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.BooleanSupplier;

/**
 * What every lane shares: the handlers, the threads, the timer for the maximum handling time, the
 * completer its outcomes go to, the tracing of its attempts, whether the relay is stopping, and
 * what lanes gave back. Also cuts a claim into lanes.
 */
final class Lanes {

  final RelayConfig config;
  final HandlerThreads threads;
  final Watchdog watchdog;
  final Completer completer;
  final RelayMetrics metrics;
  final Tracing tracing;
  final BooleanSupplier stopping;
  // What lanes gave back, for the producer's next claim to know ({@link LaneChains}).
  final Queue<GivenBack> givenBack = new ConcurrentLinkedQueue<>();

  Lanes(
      RelayConfig config,
      HandlerThreads threads,
      Watchdog watchdog,
      Completer completer,
      RelayMetrics metrics,
      Tracing tracing,
      BooleanSupplier stopping) {
    this.config = config;
    this.threads = threads;
    this.watchdog = watchdog;
    this.completer = completer;
    this.metrics = metrics;
    this.tracing = tracing;
    this.stopping = stopping;
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
}
