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
import org.jooq.Record3;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The claim: which ready messages a relay takes, written once for every database. Two passes, each
 * a bounded amount of work however deep the backlog and however many sent rows wait for vacuum or
 * purge: first the runs among the oldest pending rows from the {@link ClaimFloor}, in seq order
 * (what should be delivered first), then, only when that did not fill the batch and either took
 * nothing or found its window full, the heads of other aggregates found by a skip scan. The second
 * pass sees the first pass's rows as leased, so nothing is claimed twice. The dialect supplies the
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
  private final ClaimFloor floor;

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
    this.floor = new ClaimFloor(nanoTime);
  }

  List<OutboxMessage> claim(ClaimRequest c) {
    if (c.topics().isEmpty() || c.limit() <= 0) {
      return List.of();
    }
    long from = floor.current(() -> dsl.fetchValue(ClaimQueries.oldestPendingOrNext(dialect)));
    var lease = new OutboxDialect.Lease(c.claimToken(), c.now().plus(c.lease()));
    List<Record> claimed =
        Deadlocks.retry(() -> dialect.claimTransaction(dsl, tx -> bothPasses(tx, c, from, lease)));
    return toMessages(claimed, c.claimToken(), c.now());
  }

  /** Both passes: the window read from {@code from}, then the heads; each row leased. */
  private List<Record> bothPasses(
      DSLContext tx, ClaimRequest c, long from, OutboxDialect.Lease lease) {
    FirstPass first = leaseRuns(tx, c, c.limit(), from, lease);
    List<Record> claimed = new ArrayList<>(first.claimed());
    // The head scan finds what the window cannot: aggregates beyond a full window, and rows that
    // became pending below the floor. When the window took something and read every pending row
    // from the floor on, only the latter remain, and the scan (two more statements, about 40 % of
    // the claim at a steady rate, where it nearly always came back empty) is left to the next
    // claim that takes nothing, or to the floor, which reaches such a row within two periods. The
    // relay claims again at once after a claim that took something.
    if (claimed.size() < c.limit() && (first.claimed().isEmpty() || first.windowFull())) {
      List<Long> heads = tx.fetchValues(dialect.headSeqs(ClaimQueries.headScanBound(c.limit())));
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
   * pending rows, so that pending rows beyond it may have ready heads; true when it found no run,
   * where the head scan runs anyway).
   */
  private record FirstPass(List<Record> claimed, boolean windowFull) {}

  /**
   * The first pass: up to {@code limit} rows in the runs of the window, leased, each run cut before
   * a row it could not lease.
   */
  private FirstPass leaseRuns(
      DSLContext tx, ClaimRequest c, int limit, long from, OutboxDialect.Lease lease) {
    List<Record3<Long, String, Integer>> runs =
        tx.fetch(WindowRuns.runs(dialect, c.topics(), limit, c.maxRun(), from, c.now(), c.held()));
    int windowRows = WindowRuns.windowRows(limit, c.held());
    if (runs.isEmpty()) {
      return new FirstPass(new ArrayList<>(), true);
    }
    boolean windowFull = runs.get(0).value3() >= windowRows;
    List<Long> seqs = runs.stream().map(Record3::value1).toList();
    Map<Long, Record> leased = new HashMap<>();
    var ready = ClaimQueries.readyAmong(seqs, c.topics(), seqs.size(), c.now());
    for (Record r : dialect.lease(tx, ready, lease)) {
      leased.put(r.get(OUTBOX_MESSAGE.SEQ), r);
    }
    RunCut<Record3<Long, String, Integer>> cut =
        RunCut.of(runs, Record3::value2, run -> leased.containsKey(run.value1()));
    if (!cut.cut().isEmpty()) {
      settler.release(tx, lease.token(), cut.cut().stream().map(Record3::value1).toList());
    }
    List<Record> kept = new ArrayList<>(cut.kept().size());
    for (Record3<Long, String, Integer> run : cut.kept()) {
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
