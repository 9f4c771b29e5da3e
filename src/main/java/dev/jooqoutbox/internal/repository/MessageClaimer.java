package dev.jooqoutbox.internal.repository;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;

import dev.jooqoutbox.OutboxException;
import dev.jooqoutbox.OutboxMessage;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;
import org.jooq.DSLContext;
import org.jooq.Record;
import org.jooq.Record4;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The claim: which ready messages a relay takes, written once for every database. Two passes, each
 * a bounded amount of work however deep the backlog and however many sent rows wait for vacuum or
 * purge: first the runs among the oldest pending rows from where {@link ClaimStart} says, in seq
 * order (what should be delivered first), then, only when that did not fill the batch and either
 * took nothing or found its window full, the heads of other aggregates found by a skip scan; below
 * a {@link HorizonFloor}, before both, the parked rows the passes do not read. The second pass sees
 * the first pass's rows as leased, so nothing is claimed twice. The dialect supplies the
 * transaction, the locking and the skip scan.
 *
 * <p>The runs are chosen from a snapshot, then leased with skip-locked, which re-checks that each
 * row is still ready; a run whose row was taken or changed in between is cut before that row and
 * the rows leased after it are given back, so a run never skips a message.
 */
final class MessageClaimer {

  private static final Logger log = LoggerFactory.getLogger(JooqOutboxRepository.class);

  private final DSLContext dsl;
  private final OutboxDialect dialect;
  private final MessageRows rows;
  private final MessageSettler settler;
  private final ClaimStart start;

  MessageClaimer(
      DSLContext dsl,
      OutboxDialect dialect,
      MessageRows rows,
      MessageSettler settler,
      LongSupplier nanoTime) {
    this.dsl = dsl;
    this.dialect = dialect;
    this.rows = rows;
    this.settler = settler;
    this.start = new ClaimStart(dsl, dialect, nanoTime);
  }

  /** Where this claimer's {@link HorizonFloor} stands ({@link ClaimStart#knownFloor}). */
  long knownFloor() {
    return start.knownFloor();
  }

  List<OutboxMessage> claim(ClaimRequest c) {
    if (c.topics().isEmpty() || c.limit() <= 0) {
      return List.of();
    }
    ClaimStart.From from = start.next();
    var lease = new OutboxDialect.Lease(c.claimToken(), c.now().plus(c.lease()));
    List<Record> claimed =
        Deadlocks.retry(() -> dialect.claimTransaction(dsl, tx -> bothPasses(tx, c, from, lease)));
    return toMessages(claimed, c.claimToken(), c.now());
  }

  /**
   * Both passes: the window read from {@code from}, then the heads; each row leased with {@code
   * lease}. Below a {@link HorizonFloor}, the parked rows first.
   */
  private List<Record> bothPasses(
      DSLContext tx, ClaimRequest c, ClaimStart.From from, OutboxDialect.Lease lease) {
    // Parked rows below a HorizonFloor (changeset 007), which neither pass reads: first, as they
    // are older than anything the window reads, and a window that fills every batch must not
    // starve them. Their aggregates' later rows wait in the window: its probes see them as heads.
    // Below the window's start (later than the floor, see ClaimStart) parked rows are taken only
    // where they are their aggregate's head.
    List<Record> claimed = new ArrayList<>();
    if (start.readsParkedBelow(from)) {
      List<Long> parked = parkedHeads(tx, from);
      if (!parked.isEmpty()) {
        claimed.addAll(
            dialect.lease(
                tx, ClaimQueries.readyAmong(parked, c.topics(), c.limit(), c.now()), lease));
      }
    }
    if (claimed.size() >= c.limit()) {
      return claimed;
    }
    FirstPass first = leaseRuns(tx, c, c.limit() - claimed.size(), from, lease);
    claimed.addAll(first.claimed());
    // The head scan finds what the window cannot: aggregates beyond a full window, and rows that
    // became pending below the floor. When the window took something and read every pending row
    // from the floor on, only the latter remain, and the scan (two more statements, about 40 % of
    // the claim at a steady 1,000 msg/s, where it nearly always came back empty) is left to the
    // next claim that takes nothing, or to the floor, which reaches such a row within two periods.
    // The relay claims again at once after a claim that took something. Below a HorizonFloor no
    // row becomes pending by a commit, so there the scan runs only beyond a full window.
    if (claimed.size() < c.limit()
        && start.headScanWanted(first.claimed().isEmpty(), first.windowFull())) {
      long started = start.nanoTime();
      List<Long> heads =
          tx.fetchValues(dialect.headSeqs(ClaimQueries.headScanBound(c.limit()), from.probeFrom()));
      start.headScanTook(started);
      if (!heads.isEmpty()) {
        var ready =
            ClaimQueries.readyAmong(
                heads, c.topics(), c.limit() - claimed.size(), c.now(), aggregatesOf(claimed));
        claimed.addAll(dialect.lease(tx, ready, lease));
      }
    }
    return claimed;
  }

  /**
   * The parked rows below where the window of {@code from} starts that are their aggregate's oldest
   * pending row. One read of the small parked index, nearly always empty: each aggregate's oldest
   * parked row below the window's start is its head where it is below the floor (every other row
   * there is sent or dead); one from the floor on is checked by a probe, in a second statement run
   * only when there is such a row. Run on every claim, that statement cost 0.54 ms of planning each
   * time, 7 % of the claim's time in the database during a drain.
   */
  private List<Long> parkedHeads(DSLContext tx, ClaimStart.From from) {
    long upTo = Math.max(from.windowFrom(), from.probeFrom());
    List<Long> heads = new ArrayList<>();
    boolean probe = false;
    for (Long first : tx.fetchValues(HeadQueries.parkedHeadsBelow(upTo))) {
      if (first < from.probeFrom()) {
        heads.add(first);
      } else {
        probe = true;
      }
    }
    if (probe) {
      heads.addAll(
          tx.fetchValues(
              HeadQueries.parkedHeadsBetween(dialect, from.probeFrom(), from.windowFrom())));
    }
    return heads;
  }

  /**
   * The aggregates of {@code claimed}, whose heads a later statement of the claim must not take: a
   * run of the first pass may start behind rows its claimer held when the window was read and gave
   * back since (the later statements run after), and the head in front of it would make a run that
   * skips them.
   */
  private static Set<String> aggregatesOf(List<Record> claimed) {
    Set<String> taken = new HashSet<>();
    claimed.forEach(r -> taken.add(r.get(OUTBOX_MESSAGE.AGGREGATE)));
    return taken;
  }

  /**
   * What the first pass leased, and whether its window was full (read {@link WindowRuns#windowRows}
   * pending rows, so that pending rows beyond it may have ready heads); when it found no run,
   * counted only where that decides the head scan, else true.
   */
  private record FirstPass(List<Record> claimed, boolean windowFull) {}

  /**
   * The first pass: up to {@code limit} rows in the runs of the window, leased, each run cut before
   * a row it could not lease.
   */
  private FirstPass leaseRuns(
      DSLContext tx, ClaimRequest c, int limit, ClaimStart.From from, OutboxDialect.Lease lease) {
    List<Record4<Long, String, Integer, Long>> runs =
        tx.fetch(
            WindowRuns.runs(
                dialect,
                c.topics(),
                limit,
                c.maxRun(),
                from.windowFrom(),
                c.now(),
                c.held(),
                from.probeFrom()));
    int windowRows = WindowRuns.windowRows(limit, c.held());
    if (runs.isEmpty()) {
      // No run, so no count of what the window read. Where a window that took nothing runs the
      // head scan anyway, it does not matter. Below a HorizonFloor it decides the scan, which a
      // relay that keeps up would otherwise run after nearly every claim: under a held horizon
      // with the statistics of an empty table PostgreSQL read the primary key from the floor for
      // it, over every version of every message delivered since (PostgresHeldHorizonClaimTest).
      boolean full =
          !start.headScanNeedsAFullWindow()
              || tx.fetchValue(WindowRuns.pendingRead(dialect, from.windowFrom(), windowRows))
                  >= windowRows;
      return new FirstPass(new ArrayList<>(), full);
    }
    boolean windowFull = runs.get(0).value3() >= windowRows;
    start.windowRead(from, runs.get(0).value4());
    List<Long> seqs = runs.stream().map(Record4::value1).toList();
    Map<Long, Record> leased = new HashMap<>();
    var ready = ClaimQueries.readyAmong(seqs, c.topics(), seqs.size(), c.now());
    for (Record r : dialect.lease(tx, ready, lease)) {
      leased.put(r.get(OUTBOX_MESSAGE.SEQ), r);
    }
    RunCut<Record4<Long, String, Integer, Long>> cut =
        RunCut.of(runs, Record4::value2, run -> leased.containsKey(run.value1()));
    if (!cut.cut().isEmpty()) {
      settler.release(tx, lease.token(), cut.cut().stream().map(Record4::value1).toList());
    }
    List<Record> kept = new ArrayList<>(cut.kept().size());
    for (Record4<Long, String, Integer, Long> run : cut.kept()) {
      kept.add(leased.get(run.value1()));
    }
    return new FirstPass(kept, windowFull);
  }

  /**
   * The claimed rows as messages, in seq order. A row that cannot become a message (its headers,
   * written by hand, are not a JSON object of strings) is dead-lettered at once with the reason and
   * left out, so it cannot fail every later claim; the rest of its aggregate's run is given back,
   * so that it is claimed afresh behind whatever became of that row (dead, or still pending with
   * another owner when this lease ran out first).
   */
  private List<OutboxMessage> toMessages(List<Record> claimed, String claimToken, Instant now) {
    claimed.sort(Comparator.comparingLong(r -> r.get(OUTBOX_MESSAGE.SEQ)));
    Map<Long, OutboxMessage> messages = new HashMap<>();
    for (Record r : claimed) {
      try {
        messages.put(r.get(OUTBOX_MESSAGE.SEQ), rows.toMessage(r));
      } catch (OutboxException corrupt) {
        deadLetterCorrupt(r, corrupt, claimToken, now);
      }
    }
    RunCut<Record> cut =
        RunCut.of(
            claimed,
            r -> r.get(OUTBOX_MESSAGE.AGGREGATE),
            r -> messages.containsKey(r.get(OUTBOX_MESSAGE.SEQ)));
    if (!cut.cut().isEmpty()) {
      settler.release(claimToken, cut.cut().stream().map(r -> r.get(OUTBOX_MESSAGE.SEQ)).toList());
    }
    return cut.kept().stream().map(r -> messages.get(r.get(OUTBOX_MESSAGE.SEQ))).toList();
  }

  private void deadLetterCorrupt(
      Record r, OutboxException corrupt, String claimToken, Instant now) {
    String error = "corrupt row: " + corrupt.getMessage();
    long seq = r.get(OUTBOX_MESSAGE.SEQ);
    boolean deadLettered = settler.deadLetter(claimToken, seq, error, now);
    log.error(
        "outbox message {} (seq {}) cannot be delivered and is {}: {}",
        r.get(OUTBOX_MESSAGE.ID),
        seq,
        deadLettered ? "dead-lettered" : "left to its new owner",
        error);
  }
}
