package dev.jooqoutbox.internal.eventlog;

import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.Resolution;
import dev.jooqoutbox.internal.eventlog.Parking.Park;
import dev.jooqoutbox.internal.repository.ClaimRequest;
import dev.jooqoutbox.internal.repository.PurgeRun;
import dev.jooqoutbox.internal.repository.RelayStore;
import dev.jooqoutbox.internal.repository.UnknownClaim;
import dev.jooqoutbox.internal.repository.WakeupListener;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * The relay's store on PostgreSQL's event log: messages are read from the shards this relay leases
 * ({@link ShardKeeper}) and settled in memory; a delivered message writes nothing, and the shard's
 * position is written a few times a second at most. A message that needs a state of its own (a
 * failure, an unknown outcome, a reschedule, one given back behind such a message, one delayed, of
 * a topic this relay does not claim) is copied to outbox_message ({@link Parking}), where {@code
 * rows}, the row-state store, delivers it and every row that was there before the event log; each
 * claim takes those first.
 *
 * <p>It keeps {@link RelayStore}'s guarantees: a message of an aggregate is handed out only when
 * every older one of it is settled or with this relay (never another's: a shard is one relay's), in
 * runs of at most {@code maxRun}; a settle after the relay lost the shard changes nothing; and a
 * message the relay that held the shard before may have handed out when it stopped is copied with
 * that attempt counted, so a message that keeps crashing relays ends as a dead letter.
 */
public final class EventStore implements RelayStore {

  private final RelayStore rows;
  private final EventReader reader;
  private final Parking parking;
  private final EventBuffer buffer;
  private final ShardKeeper keeper;
  private final java.util.function.LongSupplier nanoTime;
  private final java.time.Clock clock;
  private final org.jooq.DSLContext dsl;
  private final EventPartitions partitions;

  /**
   * @param rows the row-state store on the same outbox: the parked copies and older rows
   */
  public EventStore(
      RelayStore rows,
      org.jooq.DSLContext dsl,
      com.fasterxml.jackson.databind.ObjectMapper mapper,
      Duration lease,
      int maxRun,
      java.time.Clock clock) {
    this.rows = rows;
    this.reader = new EventReader(dsl, new dev.jooqoutbox.internal.repository.MessageRows(mapper));
    this.parking = new Parking(dsl, new dev.jooqoutbox.internal.repository.MessageRows(mapper));
    this.buffer = new EventBuffer(maxRun);
    this.nanoTime = System::nanoTime;
    this.clock = clock;
    this.dsl = dsl;
    this.partitions = new EventPartitions(dsl, EventPartitions.WIDTH);
    this.keeper =
        new ShardKeeper(
            new ShardLeases(dsl, java.util.UUID.randomUUID().toString(), clock.instant()),
            buffer,
            this,
            parking,
            lease,
            nanoTime);
  }

  @Override
  public List<OutboxMessage> claim(ClaimRequest request) {
    keeper.maintain(request.now(), false);
    // The copies first: each is older than anything of its aggregate still in the log.
    List<OutboxMessage> claimed = ownCopiesAside(request, rows.claim(request));
    int room = request.limit() - claimed.size();
    if (room > 0) {
      long copiedBefore = parking.written();
      try {
        for (LogEvent e : events(request, room)) {
          claimed.add(e.message);
        }
        if (parking.written() > copiedBefore && claimed.size() < request.limit()) {
          // This claim copied messages (taken over from a relay that stopped, delayed, of a topic
          // it leaves): those that are ready go out now rather than at the next poll.
          claimed.addAll(
              ownCopiesAside(
                  request, rows.claim(request.withLimit(request.limit() - claimed.size()))));
        }
      } catch (RuntimeException e) {
        // Nothing of this claim reaches the engine: give the copies it leased back at once.
        rows.release(request.claimToken(), claimed.stream().map(OutboxMessage::seq).toList());
        throw e;
      }
    }
    claimed.sort(Comparator.comparingLong(OutboxMessage::seq));
    return claimed;
  }

  /**
   * {@code copies} without the copies of messages this relay still holds from the log: another
   * relay took their shard over (its clock ahead, or this one stalled) and copied them; they are
   * given back at once, for that relay, rather than delivered here a second time.
   */
  private List<OutboxMessage> ownCopiesAside(ClaimRequest request, List<OutboxMessage> copies) {
    List<OutboxMessage> kept = new ArrayList<>(copies.size());
    List<Long> aside = new ArrayList<>();
    synchronized (this) {
      for (OutboxMessage m : copies) {
        if (buffer.holds(m.seq())) {
          aside.add(m.seq());
        } else {
          kept.add(m);
        }
      }
    }
    if (!aside.isEmpty()) {
      rows.release(request.claimToken(), aside);
    }
    return kept;
  }

  private List<LogEvent> events(ClaimRequest request, int room) {
    List<LogEvent> out = new ArrayList<>();
    try {
      for (int round = 0; round < 4 && out.size() < room; round++) {
        java.util.Map<Short, Cursor> toRead;
        synchronized (this) {
          buffer.beforeRead();
          toRead = new java.util.TreeMap<>();
          for (ShardState s : buffer.shards.values()) {
            if (!s.leaving && !s.hasBuffered()) {
              toRead.put(s.shard, s.next);
            }
          }
        }
        int limit = Math.max(request.limit(), 32);
        boolean more = false;
        if (!toRead.isEmpty()) {
          EventReader.Read read = reader.read(toRead, limit);
          synchronized (this) {
            more = keeper.addRead(toRead, read, limit);
          }
          keeper.partitionsAhead(partitions, read.seen().xmax());
        }
        synchronized (this) {
          out.addAll(buffer.handOut(request, room - out.size(), parking));
        }
        if (!more) {
          break;
        }
      }
      keeper.markBefore(out, request.now());
      flushParking();
      return out;
    } catch (RuntimeException e) {
      synchronized (this) {
        buffer.unclaim(out);
      }
      throw e;
    }
  }

  /** Writes the copies decided so far; each settles its message once written. */
  void flushParking() {
    parking.flush(
        p -> {
          synchronized (this) {
            buffer.parked(p);
          }
        },
        p -> {
          synchronized (this) {
            buffer.unpark(p);
          }
        });
  }

  // ------------------------------------------------------------------ settles

  @Override
  public int markSent(String claimToken, Collection<Long> seqs, Instant now) {
    List<Long> rowSeqs = new ArrayList<>();
    int sent = 0;
    synchronized (this) {
      for (long seq : seqs) {
        LogEvent e = buffer.handed(claimToken, seq);
        if (e != null) {
          buffer.sent(e);
          sent++;
        } else if (!buffer.isEvent(seq)) {
          rowSeqs.add(seq);
        }
      }
    }
    if (!rowSeqs.isEmpty()) {
      sent += rows.markSent(claimToken, rowSeqs, now);
    }
    return sent;
  }

  @Override
  public boolean retryLater(String claimToken, long seq, String error, Instant nextAttemptAt) {
    Boolean copied =
        copy(claimToken, seq, e -> new Park(e, 1, nextAttemptAt, error, null, null, null));
    return copied != null ? copied : (rows.retryLater(claimToken, seq, error, nextAttemptAt));
  }

  @Override
  public boolean deadLetter(String claimToken, long seq, String error, Instant now) {
    Boolean copied =
        copy(claimToken, seq, e -> new Park(e, 1, e.availableAt, error, now, null, null));
    return copied != null ? copied : (rows.deadLetter(claimToken, seq, error, now));
  }

  @Override
  public boolean deadLetterExhausted(
      String claimToken, long seq, int maxAttempts, String error, Instant now) {
    Boolean copied =
        copy(claimToken, seq, e -> new Park(e, maxAttempts, e.availableAt, error, now, null, null));
    return copied != null
        ? copied
        : (rows.deadLetterExhausted(claimToken, seq, maxAttempts, error, now));
  }

  @Override
  public boolean markUnknown(
      String token, long seq, String remoteRef, String error, Instant now, Instant nextCheck) {
    Boolean copied = copy(token, seq, e -> new Park(e, 1, nextCheck, error, null, now, remoteRef));
    return copied != null
        ? copied
        : (rows.markUnknown(token, seq, remoteRef, error, now, nextCheck));
  }

  @Override
  public boolean reschedule(String token, long seq, Instant at) {
    Boolean copied = copy(token, seq, e -> Park.pending(e, 0, at));
    return copied != null ? copied : (rows.reschedule(token, seq, at));
  }

  @Override
  public int release(String claimToken, Collection<Long> seqs) {
    List<Long> rowSeqs = new ArrayList<>();
    int released = 0;
    synchronized (this) {
      for (long seq : seqs) {
        LogEvent e = buffer.handed(claimToken, seq);
        if (e != null) {
          buffer.giveBack(e, parking);
          released++;
        } else if (!buffer.isEvent(seq)) {
          rowSeqs.add(seq);
        }
      }
    }
    flushParking();
    if (!rowSeqs.isEmpty()) {
      released += rows.release(claimToken, rowSeqs);
    }
    return released;
  }

  /**
   * Settles the message {@code seq} of the log by a copy in outbox_message made by {@code copy}:
   * whether the copy was written (false: another relay's was there first); null when {@code seq} is
   * no message of the log this relay handed out, so the row-state store has it.
   */
  private Boolean copy(String token, long seq, Function<LogEvent, Park> copy) {
    Park park;
    synchronized (this) {
      LogEvent e = buffer.handed(token, seq);
      if (e == null) {
        return buffer.isEvent(seq) ? Boolean.FALSE : null;
      }
      park = copy.apply(e);
      buffer.park(park, parking);
    }
    flushParking();
    if (!park.done) {
      // Its copy was in another thread's statement, which failed: the caller tries again.
      throw new IllegalStateException("outbox relay could not write the outcome of message " + seq);
    }
    return park.written;
  }

  @Override
  public int extendLeases(Collection<String> claimTokens, Collection<Long> seqs, Instant until) {
    List<Long> rowSeqs = new ArrayList<>();
    int extended = 0;
    synchronized (this) {
      for (long seq : seqs) {
        boolean ours = false;
        for (String token : claimTokens) {
          ours |= buffer.handed(token, seq) != null;
        }
        if (ours) {
          extended++;
        } else if (!buffer.isEvent(seq)) {
          rowSeqs.add(seq);
        }
      }
    }
    if (extended > 0) {
      keeper.extendTo(until);
    }
    return extended + (rowSeqs.isEmpty() ? 0 : rows.extendLeases(claimTokens, rowSeqs, until));
  }

  // ------------------------------------------------------------------ outcomes, gauges, upkeep

  @Override
  public List<UnknownClaim> claimDueUnknown(
      Set<String> topics, int limit, Duration lease, String token, Instant now) {
    return rows.claimDueUnknown(topics, limit, lease, token, now);
  }

  @Override
  public boolean stillUnknown(String token, long seq, String remoteRef, Instant nextCheck) {
    return (rows.stillUnknown(token, seq, remoteRef, nextCheck));
  }

  @Override
  public boolean resolveClaimed(
      String token, long seq, Resolution resolution, String reason, Instant now) {
    return (rows.resolveClaimed(token, seq, resolution, reason, now));
  }

  @Override
  public Set<String> pausedTopics() {
    return rows.pausedTopics();
  }

  @Override
  public long unknownCount() {
    return rows.unknownCount();
  }

  @Override
  public long pendingCount() {
    return rows.pendingCount() + keeper.backlog().pendingCount();
  }

  @Override
  public Duration oldestPendingAge(Instant now) {
    Duration events = keeper.backlog().oldestPendingAge(now);
    Duration parked = rows.oldestPendingAge(now);
    return events.compareTo(parked) > 0 ? events : parked;
  }

  @Override
  public PurgeRun startPurge(Instant cutoff, int batchSize) {
    return new LogPurgeRun(
        rows.startPurge(cutoff, batchSize), new EventRetention(dsl, partitions, cutoff, batchSize));
  }

  @Override
  public WakeupListener wakeupListener(Runnable onNotification, Duration reconnectDelay) {
    return rows.wakeupListener(onNotification, reconnectDelay);
  }

  @Override
  public void start() {
    keeper.start(clock);
  }

  @Override
  public void flush() {
    flushParking();
    keeper.drained();
  }

  @Override
  public void close() {
    flushParking();
    keeper.close();
  }
}
