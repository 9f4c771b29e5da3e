package dev.jooqoutbox.internal.eventlog;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps this relay's shards: takes its fair share of them (the shards over the relays alive),
 * renews their leases, writes their settled positions, and the mark a relay taking one over after a
 * crash counts attempts up to. Writes are few: a lease renewal a third of the lease at most often,
 * the positions that moved once a second while the relay is busy and once it has been idle for a
 * tick, a mark when a claim hands out a message past the last one (a mark reaches as far ahead
 * again as the relay handed out since the mark before, so a busy relay writes it about as often as
 * its positions).
 *
 * <p>A started relay keeps them on a thread of its own ({@link #start}), every {@value
 * #TICK_MILLIS} ms of the wall clock: how soon a settled position reaches the database is no
 * behaviour of the relay (a crash delivers what is behind it again, at least once either way), so
 * it needs no injected time, and the relay's own threads never wait for these writes. A relay that
 * only drains on the caller's thread keeps them in its claims and gives them back after each drain.
 *
 * <p>Its state is guarded by {@code monitor} (the {@link EventStore}'s), its writes by a lock of
 * its own so that no write of older state lands after a newer one.
 */
final class ShardKeeper {

  private static final Logger log = LoggerFactory.getLogger(EventStore.class);

  private static final long MAINTAIN_NANOS = TimeUnit.MILLISECONDS.toNanos(250);
  private static final long HEARTBEAT_NANOS = TimeUnit.SECONDS.toNanos(5);
  private static final long BUSY_WRITE_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
  static final long TICK_MILLIS = 100;
  private static final long MIN_HEADROOM = 100;
  private static final long MAX_HEADROOM = 10_000;

  private final ShardLeases leases;
  private final EventBuffer buffer;
  private final EventStore store;
  private final Parking parking;
  private final Object monitor;
  private final Duration lease;
  private final LongSupplier nanoTime;
  private final ReentrantLock writing = new ReentrantLock();
  private final EventBacklog backlog;

  // Under monitor.
  private boolean maintained;
  private long maintainedNanos;
  private Instant maintainedAt = Instant.EPOCH;
  private Instant now = Instant.EPOCH;
  private Instant leaseUntil = Instant.EPOCH;
  private long writtenNanos;
  private long mark = -1;
  private long durableMark = -1;
  private long markBase = -1;
  private boolean idleAtLastTick;
  private boolean registered;
  private long partitionsEnd = Long.MIN_VALUE;
  private long heartbeatNanos;
  private ScheduledExecutorService thread;

  ShardKeeper(
      ShardLeases leases,
      EventBuffer buffer,
      EventStore store,
      Parking parking,
      Duration lease,
      LongSupplier nanoTime) {
    this.leases = leases;
    this.buffer = buffer;
    this.store = store;
    this.parking = parking;
    this.monitor = store;
    this.lease = lease;
    this.nanoTime = nanoTime;
    this.backlog = new EventBacklog(leases);
  }

  EventBacklog backlog() {
    return backlog;
  }

  /**
   * Takes or gives back shards when due (or {@code force}): four times a second, reading how many
   * relays are alive; renews this relay's own lease and its shards' a third of the lease at most
   * often.
   */
  void maintain(Instant now, boolean force) {
    long nanos = nanoTime.getAsLong();
    synchronized (monitor) {
      this.now = now;
      boolean due =
          force
              || !maintained
              || nanos - maintainedNanos >= MAINTAIN_NANOS
              || !now.isBefore(maintainedAt.plus(lease.dividedBy(6)))
              || !now.isBefore(leaseUntil.minus(lease.multipliedBy(2).dividedBy(3)));
      if (!due) {
        return;
      }
      maintained = true;
      maintainedNanos = nanos;
      maintainedAt = now;
    }
    boolean renew;
    boolean beat;
    synchronized (monitor) {
      renew = !now.isBefore(leaseUntil.minus(lease.multipliedBy(2).dividedBy(3)));
      beat = renew || !registered || nanos - heartbeatNanos >= HEARTBEAT_NANOS;
      if (beat) {
        registered = true;
        heartbeatNanos = nanos;
      }
    }
    int alive = beat ? leases.heartbeat(now, now.plus(lease)) : leases.alive(now);
    if (renew) {
      write(null);
    }
    int held;
    // A relay that only drains on the caller's thread takes every shard free and gives them all
    // back after the drain; a started one its fair share of them, the rest to the others.
    int fair;
    synchronized (monitor) {
      fair = thread == null ? EventShards.COUNT : (EventShards.COUNT + alive - 1) / alive;
    }
    synchronized (monitor) {
      held = (int) buffer.shards.values().stream().filter(s -> !s.leaving).count();
      int excess = held - fair;
      for (ShardState s : buffer.shards.descendingMap().values()) {
        if (excess <= 0) {
          break;
        }
        if (!s.leaving) {
          s.leaving = true; // another relay came: it reads no more, and goes once quiet
          excess--;
        }
      }
    }
    if (held < fair) {
      for (ShardLeases.Taken t : leases.take(fair - held, now, now.plus(lease))) {
        synchronized (monitor) {
          buffer.shards.put(t.shard(), new ShardState(t.shard(), t.cursor(), t.previousMark()));
          leaseUntil = now.plus(lease);
        }
      }
    }
    giveBack(false);
    if (beat) {
      leases.forgetStale(now.minus(Duration.ofHours(1)));
    }
  }

  /**
   * Makes sure partitions are ready ahead of transaction id {@code xmax} (seen by a read): checks
   * the catalog only when the end it knew of comes within one partition, once a partition's worth
   * of transactions. A failure (a lock not had in time) is tried again at the next read.
   */
  void partitionsAhead(EventPartitions partitions, long xmax) {
    synchronized (monitor) {
      if (xmax + partitions.width() <= partitionsEnd) {
        return;
      }
    }
    try {
      long end = partitions.ensureAhead(xmax);
      synchronized (monitor) {
        partitionsEnd = end;
      }
    } catch (RuntimeException e) {
      log.warn("outbox relay could not add a partition of the event log yet; trying again", e);
    }
  }

  /** Adds what {@code read} found for the shards it read; returns whether a shard has more. */
  boolean addRead(Map<Short, Cursor> asked, EventReader.Read read, int limit) {
    boolean more = false;
    for (Map.Entry<Short, Cursor> a : asked.entrySet()) {
      ShardState s = buffer.shards.get(a.getKey());
      if (s == null || !s.next.equals(a.getValue())) {
        continue; // lost, or taken anew, while the read ran
      }
      List<LogEvent> events = read.events().getOrDefault(a.getKey(), List.of());
      boolean full = events.size() >= limit;
      LogEvent last = events.isEmpty() ? null : events.get(events.size() - 1);
      Cursor after =
          s.next.afterChunk(
              read.seen(), full, last == null ? 0 : last.txid, last == null ? 0 : last.seq());
      buffer.add(s, new LogEvent.Chunk(new ArrayList<>(events), s.next, after));
      s.more = full;
      more |= full;
    }
    return more;
  }

  /**
   * Before a claim hands out {@code out}: writes a mark past them unless the last one covers them,
   * so that a relay taking a shard over after a crash of this one counts their attempt.
   */
  void markBefore(List<LogEvent> out, Instant now) {
    long highest = out.stream().mapToLong(LogEvent::seq).max().orElse(-1);
    synchronized (monitor) {
      this.now = now;
      if (covered(out)) {
        return;
      }
      // Past what this claim hands out, as far again as the relay handed out since the last mark
      // (a busy relay writes it about as often as its positions), not past everything it read:
      // whoever takes the shard over after a crash counts an attempt for each message up to it.
      // A shard taken since the last mark gets it too, even when no new mark is due.
      if (highest > Math.max(mark, durableMark)) {
        mark = highest + Math.min(MAX_HEADROOM, Math.max(MIN_HEADROOM, highest - markBase));
        markBase = highest;
      }
    }
    write(null);
    synchronized (monitor) {
      if (!covered(out)) {
        throw new IllegalStateException("outbox relay could not record the messages it reads");
      }
    }
  }

  /** Whether each of {@code out} is within the mark its shard's row holds. Under monitor. */
  private boolean covered(List<LogEvent> out) {
    for (LogEvent e : out) {
      ShardState s = buffer.shards.get(e.shard);
      if (s == null || e.seq() > s.writtenMark) {
        return false;
      }
    }
    return true;
  }

  /**
   * Starts the thread that keeps the shards while the relay runs, on {@code clock}'s time for the
   * leases.
   */
  void start(Clock clock) {
    ScheduledExecutorService t =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread th = new Thread(r, "outbox-shards-" + leases.relayId().substring(0, 8));
              th.setDaemon(true);
              return th;
            });
    synchronized (monitor) {
      thread = t;
    }
    t.scheduleWithFixedDelay(() -> tick(clock), TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
  }

  private void tick(Clock clock) {
    try {
      maintain(clock.instant(), false);
      long nanos = nanoTime.getAsLong();
      boolean due;
      synchronized (monitor) {
        boolean idle = buffer.idle();
        boolean moved = buffer.shards.values().stream().anyMatch(ShardState::moved);
        due = moved && ((idle && idleAtLastTick) || nanos - writtenNanos >= BUSY_WRITE_NANOS);
        idleAtLastTick = idle;
      }
      if (due) {
        write(null);
      }
      giveBack(false);
    } catch (RuntimeException e) {
      // The next tick tries again; a lease that runs out meanwhile is taken over, at least once.
      log.warn("outbox relay could not keep its shards; trying again", e);
    }
  }

  /** The heartbeat extends what is in flight to {@code until}: so are the shards' leases. */
  void extendTo(Instant until) {
    synchronized (monitor) {
      if (!until.isAfter(leaseUntil)) {
        return;
      }
    }
    write(until);
  }

  /**
   * Writes every held shard's position, the mark and the lease (to the later of a lease from now
   * and {@code until}, if given); forgets the shards another relay took meanwhile.
   */
  void write(Instant until) {
    writing.lock();
    try {
      Map<Short, ShardLeases.ShardWrite> writes = new HashMap<>();
      Instant newUntil;
      long writingMark;
      synchronized (monitor) {
        writingMark = Math.max(mark, durableMark);
        for (ShardState s : buffer.shards.values()) {
          // Never below the mark the shard was taken over with: a message up to it may be out
          // with the relay that crashed, and a relay taking the shard over after a crash of this
          // one must count its attempt (and find its copy) just the same.
          writes.put(
              s.shard,
              new ShardLeases.ShardWrite(s.settled, Math.max(writingMark, s.previousMark)));
        }
        newUntil = now.plus(lease);
        if (until != null && until.isAfter(newUntil)) {
          newUntil = until;
        }
      }
      if (writes.isEmpty()) {
        return;
      }
      Set<Short> lost = leases.write(writes, newUntil);
      if (!lost.isEmpty()) {
        log.warn(
            "outbox relay lost {} of {} shards of the event log to another relay before writing"
                + " their positions (lease {} too short, or the relay stalled?); what it delivered"
                + " from them since its last write will be delivered again",
            lost.size(),
            writes.size(),
            lease);
      }
      synchronized (monitor) {
        for (Map.Entry<Short, ShardLeases.ShardWrite> w : writes.entrySet()) {
          ShardState s = buffer.shards.get(w.getKey());
          if (lost.contains(w.getKey())) {
            buffer.drop(w.getKey());
          } else if (s != null) {
            s.written = w.getValue().settled();
            s.writtenMark = Math.max(s.writtenMark, w.getValue().mark());
          }
        }
        durableMark = writingMark;
        leaseUntil = newUntil;
        writtenNanos = nanoTime.getAsLong();
      }
    } finally {
      writing.unlock();
    }
  }

  /**
   * Gives back the shards that are leaving (or, on {@code closing}, all) once nothing read from
   * them is out with the engine: at their settled position, without a mark of this relay's.
   */
  private void giveBack(boolean closing) {
    writing.lock();
    try {
      boolean copied = false;
      synchronized (monitor) {
        for (ShardState s : buffer.shards.values()) {
          if ((closing || s.leaving) && s.nothingOut()) {
            copied |= buffer.copyGaps(s, parking);
          }
        }
      }
      if (copied) {
        store.flushParking();
      }
      Map<Short, ShardLeases.ShardWrite> back = new HashMap<>();
      synchronized (monitor) {
        for (ShardState s : buffer.shards.values()) {
          if ((closing || s.leaving) && s.nothingOut()) {
            // This relay's own mark goes (nothing of it is out); a crashed one's stays.
            back.put(s.shard, new ShardLeases.ShardWrite(s.settled, s.previousMark));
          }
        }
        // Dropped at once, under the monitor that saw nothing out: a claim in between would hand
        // out a message past the position given back, which the next owner delivers again. Should
        // the write fail, the shards stay leased here until their lease runs out and are then
        // taken over as a crashed relay's, at least once.
        back.keySet().forEach(buffer::drop);
      }
      if (back.isEmpty()) {
        return;
      }
      leases.giveBack(back);
    } finally {
      writing.unlock();
    }
  }

  /**
   * The relay closes: writes the positions, gives back every shard with nothing out (a shard with a
   * message still out is left to its lease, and counted as a crash by whoever takes it next).
   */
  void close() {
    ScheduledExecutorService t;
    synchronized (monitor) {
      t = thread;
    }
    if (t != null) {
      t.shutdown();
      try {
        t.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    write(null);
    giveBack(true);
    leases.leave();
  }

  /**
   * A drain on the caller's thread ended: writes the positions and gives back every shard with
   * nothing out, so that another relay (or this one's next drain) takes them.
   */
  void drained() {
    write(null);
    giveBack(true);
    leases.leave();
    synchronized (monitor) {
      maintained = false; // the next drain takes shards again at once
      registered = false;
    }
  }
}
