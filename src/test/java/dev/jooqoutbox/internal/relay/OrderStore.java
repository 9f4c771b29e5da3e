package dev.jooqoutbox.internal.relay;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.jooqoutbox.OutboxMessage;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The store of {@link OrderWorld}: rows in seq order, each pending (ready, backing off, or leased
 * to a claim until a time), sent or dead, the time, and the claim's rule over them ({@code
 * WindowRuns}).
 */
final class OrderStore {

  static final List<String> AGGREGATES = List.of("a", "b", "c");
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final Instant T0 = Instant.parse("2026-12-06T00:00:00Z");

  enum State {
    PENDING,
    SENT,
    DEAD
  }

  /** A row of the store. */
  static final class Row {
    final long seq;
    final String aggregate;
    State state = State.PENDING;
    boolean ready = true; // false while a failed attempt backs off
    String lease;
    long leaseUntil;

    Row(long seq, String aggregate) {
      this.seq = seq;
      this.aggregate = aggregate;
    }

    OutboxMessage message() {
      return new OutboxMessage(
          seq, "id-" + seq, aggregate, "orders", "{}", Map.of(), 1, T0, MAPPER);
    }
  }

  final TreeMap<Long, Row> rows = new TreeMap<>();
  // The aggregates the last call of claimable passed over: more than one run of them held.
  final Set<String> overHeld = new HashSet<>();
  private final int maxRun;
  private final long leaseLength;
  long now;

  OrderStore(int maxRun, long leaseLength) {
    this.maxRun = maxRun;
    this.leaseLength = leaseLength;
  }

  /** Leases {@code row} to claim {@code token} from now on. */
  void lease(Row row, String token) {
    row.lease = token;
    row.leaseUntil = now + leaseLength;
  }

  /** The heartbeat: every row leased to one of {@code tokens} is leased a full lease from now. */
  void extend(Set<String> tokens) {
    rows.values().stream()
        .filter(r -> r.lease != null && tokens.contains(r.lease))
        .forEach(r -> r.leaseUntil = now + leaseLength);
  }

  /** Whether {@code row} is leased to {@code token} and its lease runs. */
  boolean leasedTo(Row row, String token) {
    return token.equals(row.lease) && row.leaseUntil > now;
  }

  /** Whether some pending row's lease still runs. */
  boolean anyLeaseRuns() {
    return rows.values().stream()
        .anyMatch(r -> r.state == State.PENDING && r.lease != null && r.leaseUntil > now);
  }

  /**
   * A writer commits a message to aggregate {@code aggregate} (an index of {@link #AGGREGATES}).
   */
  void write(int aggregate) {
    long seq = rows.isEmpty() ? 1 : rows.lastKey() + 1;
    rows.put(seq, new Row(seq, AGGREGATES.get(aggregate % AGGREGATES.size())));
  }

  /** The pending rows that back off after a failed attempt. */
  List<Row> backingOff() {
    return rows.values().stream().filter(r -> r.state == State.PENDING && !r.ready).toList();
  }

  /** The seqs of the pending rows. */
  List<Long> pending() {
    return rows.values().stream().filter(r -> r.state == State.PENDING).map(r -> r.seq).toList();
  }

  /**
   * The rows a claim would take now, holding {@code held}'s leases: WindowRuns' rule (a row whose
   * lease ran out is ready again, whoever leased it).
   */
  List<Row> claimable(Set<String> held) {
    Map<String, List<Row>> pending = new LinkedHashMap<>();
    rows.values().stream()
        .filter(r -> r.state == State.PENDING)
        .forEach(r -> pending.computeIfAbsent(r.aggregate, a -> new ArrayList<>()).add(r));
    List<Row> found = new ArrayList<>();
    overHeld.clear();
    for (List<Row> ofAggregate : pending.values()) {
      int i = 0;
      while (i < ofAggregate.size() && isHeld(ofAggregate.get(i), held)) {
        i++;
      }
      if (i > maxRun) {
        overHeld.add(ofAggregate.get(0).aggregate);
        continue; // more than one run in flight before it
      }
      for (int n = 0; i < ofAggregate.size() && n < maxRun; i++, n++) {
        Row r = ofAggregate.get(i);
        if ((r.lease != null && r.leaseUntil > now) || !r.ready) {
          break;
        }
        found.add(r);
      }
    }
    found.sort((x, y) -> Long.compare(x.seq, y.seq));
    return found;
  }

  private boolean isHeld(Row row, Set<String> held) {
    return row.lease != null && held.contains(row.lease) && row.leaseUntil > now;
  }
}
