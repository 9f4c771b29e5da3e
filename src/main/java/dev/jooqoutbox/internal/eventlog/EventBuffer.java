package dev.jooqoutbox.internal.eventlog;

import dev.jooqoutbox.internal.eventlog.Parking.Park;
import dev.jooqoutbox.internal.repository.ClaimRequest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What this relay holds of the log in memory: the shards it leases with the messages read from
 * them, which of those are with the engine, and per aggregate what the hand-out must know. It
 * decides, for each message read, whether it is handed to the engine or copied to outbox_message
 * (parked), and when: the order of an aggregate is the order its messages were read in, and no
 * message is handed out while an older one of its aggregate is parked or has a pending row there.
 * Not thread-safe: the {@link EventStore} calls it under its monitor.
 */
final class EventBuffer {

  /** Per aggregate: its messages in memory not yet settled, and those with the engine. */
  private static final class Aggregate {
    int unsettled;
    final TreeSet<Long> handed = new TreeSet<>();

    /** A message of it was parked by this relay while others of it were read: they follow. */
    boolean parked;
  }

  private static final java.util.Comparator<LogEvent> LOG_ORDER =
      java.util.Comparator.<LogEvent>comparingLong(e -> e.txid).thenComparingLong(LogEvent::seq);

  final TreeMap<Short, ShardState> shards = new TreeMap<>();
  private final Map<Long, LogEvent> handed = new HashMap<>();
  private final Map<String, Aggregate> aggregates = new HashMap<>();
  private final int maxRun;

  EventBuffer(int maxRun) {
    this.maxRun = maxRun;
  }

  /** Adds a chunk read from {@code shard}; it belongs after the ones read before. */
  void add(ShardState shard, LogEvent.Chunk chunk) {
    for (LogEvent e : chunk.events) {
      aggregate(e.aggregate()).unsettled++;
    }
    shard.add(chunk);
    shard.advance(); // an empty chunk moves the position at once
  }

  /**
   * Hands out up to {@code want} messages for {@code request}, in runs of at most {@code maxRun} an
   * aggregate, and queues in {@code parking} every message that must be copied instead. Returns the
   * messages handed out, per aggregate in read order.
   */
  List<LogEvent> handOut(ClaimRequest request, int want, Parking parking) {
    // Across shards in the order of the log, (txid, seq): each shard's own order, and the oldest
    // committed first whichever shard it is in.
    List<LogEvent> waiting = new ArrayList<>();
    for (ShardState shard : shards.values()) {
      for (LogEvent.Chunk chunk : shard.chunks()) {
        for (LogEvent e : chunk.events) {
          if (e.state == LogEvent.State.BUFFERED) {
            waiting.add(e);
          }
        }
      }
    }
    waiting.sort(LOG_ORDER);
    List<LogEvent> out = new ArrayList<>();
    Map<String, Integer> run = new HashMap<>();
    Set<String> stopped = new HashSet<>();
    for (LogEvent e : waiting) {
      if (out.size() >= want) {
        break;
      }
      if (stopped.contains(e.aggregate())) {
        continue;
      }
      Aggregate a = aggregate(e.aggregate());
      Park park = parkInstead(e, a, shards.get(e.shard), request);
      if (park != null && park.holds() && !a.handed.isEmpty()) {
        // Not while messages of its aggregate are out with the engine: a copy could be delivered
        // from outbox_message (by any relay) before they are. It waits here until they settle.
        stopped.add(e.aggregate());
        continue;
      }
      if (park != null) {
        park(park, parking);
        continue;
      }
      int inRun = run.getOrDefault(e.aggregate(), 0);
      int heldBefore = a.handed.size() - inRun;
      // Committed after a message of its aggregate with a higher seq that is out with the engine,
      // which orders an aggregate's messages in flight by seq: it waits until they settle.
      boolean overtaken = !a.handed.isEmpty() && e.seq() < a.handed.last();
      if (overtaken || inRun >= maxRun || heldBefore > maxRun) {
        stopped.add(e.aggregate()); // what follows of it stays for a later claim
        continue;
      }
      e.state = LogEvent.State.HANDED;
      e.token = request.claimToken();
      handed.put(e.seq(), e);
      a.handed.add(e.seq());
      run.put(e.aggregate(), inRun + 1);
      out.add(e);
    }
    return out;
  }

  /** Why {@code e} must be copied rather than handed out now, as the copy it becomes; or null. */
  private static Park parkInstead(LogEvent e, Aggregate a, ShardState shard, ClaimRequest request) {
    var m = e.message;
    if (e.unreadable != null) {
      return new Park(e, 1, e.availableAt, e.unreadable, request.now(), null, null);
    }
    if (e.seq() <= shard.previousMark) {
      // The relay before may have handed it out when it stopped: that counts as an attempt.
      return Park.pending(e, 1, e.availableAt);
    }
    boolean later = e.availableAt.isAfter(request.now());
    boolean behind = e.behindParked || a.parked;
    if (behind || later || !request.topics().contains(m.topic())) {
      return Park.pending(e, 0, e.availableAt);
    }
    return null;
  }

  /** Queues {@code park} of a message this relay holds; what follows of its aggregate follows. */
  void park(Park park, Parking parking) {
    LogEvent e = park.event;
    if (e.state == LogEvent.State.HANDED) {
      park.handedToken = e.token;
      unhand(e);
    }
    e.state = LogEvent.State.PARKING;
    if (park.holds()) {
      aggregate(e.aggregate()).parked = true;
    }
    parking.add(park);
  }

  /**
   * The copy of {@code park} could not be written: the message is back where it was, with the
   * engine under its token or waiting to be handed out.
   */
  void unpark(Park park) {
    LogEvent e = park.event;
    if (e.state != LogEvent.State.PARKING) {
      return;
    }
    if (park.handedToken != null) {
      e.state = LogEvent.State.HANDED;
      e.token = park.handedToken;
      handed.put(e.seq(), e);
      aggregate(e.aggregate()).handed.add(e.seq());
    } else {
      e.state = LogEvent.State.BUFFERED;
    }
  }

  /** The copy of {@code park} was written (or another relay's was there): it is settled. */
  void parked(Park park) {
    settle(park.event);
  }

  /** The message {@code seq} handed out under {@code token}, or null if this relay lost it. */
  LogEvent handed(String token, long seq) {
    LogEvent e = handed.get(seq);
    return e != null && e.token.equals(token) && shards.containsKey(e.shard) ? e : null;
  }

  /** Whether this relay holds message {@code seq} of the log, read and not settled. */
  boolean holds(long seq) {
    for (ShardState s : shards.values()) {
      for (LogEvent.Chunk c : s.chunks()) {
        for (LogEvent e : c.events) {
          if (e.seq() == seq) {
            return e.state != LogEvent.State.DONE;
          }
        }
      }
    }
    return false;
  }

  /** Whether {@code seq} is a message of the log this relay handed out (under any token). */
  boolean isEvent(long seq) {
    return handed.containsKey(seq);
  }

  /** The engine delivered {@code e}. */
  void sent(LogEvent e) {
    unhand(e);
    settle(e);
  }

  /**
   * The engine gives {@code e} back unhandled: handed out again later, or copied if its aggregate
   * has a copy (it must stay behind it). Returns the copy to write, or null.
   */
  Park giveBack(LogEvent e, Parking parking) {
    unhand(e);
    Aggregate a = aggregate(e.aggregate());
    if (a.parked || e.behindParked) {
      Park park = Park.pending(e, 0, e.availableAt);
      park(park, parking);
      return park;
    }
    e.state = LogEvent.State.BUFFERED;
    return null;
  }

  /**
   * Before giving {@code shard} back: copies every message of it still waiting to be handed out
   * that lies before a settled one in the log, so that its position can pass everything settled and
   * whoever reads on delivers nothing a second time. Returns whether it copied any.
   */
  boolean copyGaps(ShardState shard, Parking parking) {
    List<LogEvent> waiting = new ArrayList<>();
    List<LogEvent> gaps = new ArrayList<>();
    for (LogEvent.Chunk chunk : shard.chunks()) {
      for (LogEvent e : chunk.events) {
        if (e.state == LogEvent.State.BUFFERED) {
          waiting.add(e);
        } else if (e.state == LogEvent.State.DONE) {
          gaps.addAll(waiting);
          waiting.clear();
        }
      }
    }
    for (LogEvent e : gaps) {
      park(Park.pending(e, 0, e.availableAt), parking);
    }
    return !gaps.isEmpty();
  }

  /** Whether nothing read is with the engine or waiting to be. */
  boolean idle() {
    return handed.isEmpty() && shards.values().stream().noneMatch(ShardState::hasBuffered);
  }

  /** The highest seq read and not settled, or -1. */
  long highestSeqRead() {
    long max = -1;
    for (ShardState s : shards.values()) {
      for (LogEvent.Chunk c : s.chunks()) {
        for (LogEvent e : c.events) {
          max = Math.max(max, e.seq());
        }
      }
    }
    return max;
  }

  /** Forgets a shard this relay lost or gave back, with everything read from it. */
  void drop(short shard) {
    ShardState s = shards.remove(shard);
    if (s == null) {
      return;
    }
    for (LogEvent.Chunk c : s.chunks()) {
      for (LogEvent e : c.events) {
        if (e.state == LogEvent.State.HANDED) {
          unhand(e);
        }
        if (e.state != LogEvent.State.DONE) {
          forget(e);
        }
      }
    }
  }

  /** Puts messages handed out by a claim that then failed back, as if never handed. */
  void unclaim(List<LogEvent> events) {
    for (LogEvent e : events) {
      if (e.state == LogEvent.State.HANDED) {
        unhand(e);
        e.state = LogEvent.State.BUFFERED;
      }
    }
  }

  private void unhand(LogEvent e) {
    handed.remove(e.seq());
    Aggregate a = aggregates.get(e.aggregate());
    if (a != null) {
      a.handed.remove(e.seq());
    }
  }

  private void settle(LogEvent e) {
    if (e.state == LogEvent.State.DONE) {
      return;
    }
    e.done();
    forget(e);
    ShardState s = shards.get(e.shard);
    if (s != null) {
      s.advance();
    }
  }

  private void forget(LogEvent e) {
    Aggregate a = aggregates.get(e.aggregate());
    if (a != null) {
      a.unsettled--;
    }
  }

  /**
   * Called before each read: forgets the aggregates with nothing in memory. Their copies, if any,
   * committed before this read starts, so the read sees them ({@link LogEvent#behindParked}); a
   * read that was under way when one committed might not have, which is why an aggregate is
   * forgotten here and not when its last message settles. Reads are one at a time (the producer).
   */
  void beforeRead() {
    aggregates.values().removeIf(a -> a.unsettled <= 0 && a.handed.isEmpty());
  }

  private Aggregate aggregate(String aggregate) {
    return aggregates.computeIfAbsent(aggregate, k -> new Aggregate());
  }
}
