package dev.jooqoutbox.internal.repository;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Collections;
import java.util.Set;
import java.util.function.LongSupplier;
import org.jooq.DSLContext;
import org.jooq.Record3;

/**
 * Where a claim starts on a database that tells which transactions still run (PostgreSQL): a seq
 * below which no row can become pending by a writer's commit. Both of the claim's reads start
 * there: its window, and its probes of each aggregate's oldest pending message. While another
 * transaction holds the xmin horizon, PostgreSQL can neither remove the row versions of delivered
 * messages nor mark their index entries dead, so every read from an index's first entry, or from an
 * aggregate's, walks the whole history; reads from this floor walk only what was delivered since it
 * last moved (docs/architecture.md, "A held xmin horizon").
 *
 * <p>Why the floor is safe: a seq is handed out by the insert that writes its row, and that
 * transaction has its id a moment later, when the row is stored (at once when it wrote anything
 * before). Each refresh reads the newest seq handed out ({@code N}); the snapshot of the refresh
 * after the next one, at least two periods later, gives the next transaction id ({@code X}), so
 * every transaction that drew a seq up to {@code N} has an id below {@code X}, unless its insert
 * stalled for more than two periods between drawing the seq and storing the row (the recheck below
 * finds such a row; docs/architecture.md says what it costs). Once the oldest transaction still
 * running has an id at or above {@code X}, all of them have ended. Or, sooner: the insert takes the
 * table's lock for writing before it draws its seq and keeps it until its transaction ends, so the
 * transactions holding that lock at any time after {@code N} was read include every one that drew a
 * seq up to {@code N} and has not ended; once none of them holds it any more, they have all ended,
 * however long other transactions run. The lock table is read only while an older transaction keeps
 * an observation waiting (on a busy server that read is not free). Either way every row up to
 * {@code N} is committed or gone, and the floor moves to the oldest pending row up to {@code N}
 * that is not parked (or past {@code N} when there is none), read from the floor on. A read-only
 * transaction (a report, {@code pg_dump}) has no transaction id and does not stop this, nor does a
 * session idle in a transaction that wrote other tables; one idle in a transaction that wrote to
 * the outbox holds the floor where it is until it ends (its message may still commit below it), and
 * the claim then reads more, but stays correct.
 *
 * <p>The floor does not wait for a parked row ({@code parked_at}: written with a delay, backing
 * off, outcome unknown) and an operator's requeue parks the dead letter it makes pending, perhaps
 * below the floor: the claim reads the pending parked rows below the floor from their own small
 * index ({@link HeadQueries#parkedHeadsBelow}) and its probes see them, so each still holds its
 * aggregate back. A row set back to pending by hand is not parked: the {@link FloorRecheck} reads
 * below the floor, in chunks, finds it and lowers the floor. Thread-safe.
 */
final class HorizonFloor {

  /** The shortest time between two refreshes. */
  static final Duration PERIOD = Duration.ofMillis(250);

  /** Observations waiting for their transactions to end; more are dropped until they have. */
  private static final int MAX_WAITING = 16;

  private final DSLContext dsl;
  private final OutboxDialect dialect;
  private final LongSupplier nanoTime;
  private final FloorRecheck recheck;

  /**
   * A newest seq, the next transaction id of a snapshot taken after it was read, and the writers of
   * the table seen some time after it was read (null until they are asked for).
   */
  private static final class Observation {
    final long newest;
    final long nextTransaction;
    Set<String> writers;

    Observation(long newest, long nextTransaction) {
      this.newest = newest;
      this.nextTransaction = nextTransaction;
    }
  }

  private final ArrayDeque<Observation> waiting = new ArrayDeque<>();

  private long floor = Long.MIN_VALUE;
  private long previousNextTransaction = Long.MIN_VALUE;
  private long newestSeen;
  private long newestSeenBefore;
  private int seen;
  private long refreshedAt;
  private boolean refreshed;

  HorizonFloor(DSLContext dsl, OutboxDialect dialect, LongSupplier nanoTime) {
    this.dsl = dsl;
    this.dialect = dialect;
    this.nanoTime = nanoTime;
    this.recheck = new FloorRecheck(dsl, dialect, nanoTime);
  }

  /** The floor for a claim starting now, refreshed first when a refresh is due. */
  synchronized long current() {
    long now = nanoTime.getAsLong();
    if (!refreshed || now - refreshedAt >= PERIOD.toNanos()) {
      refreshed = true;
      refreshedAt = now;
      advance();
    }
    if (floor != Long.MIN_VALUE) {
      Long below = recheck.below(floor, now);
      if (below != null && below < floor) {
        floor = below;
      }
    }
    return floor;
  }

  /**
   * The floor as the last claim left it, without reading anything: {@link Long#MIN_VALUE} before
   * the first claim. Pending rows below it are parked, or set pending by hand and not found yet.
   */
  synchronized long known() {
    return floor;
  }

  private void advance() {
    Record3<Long, Long, Long> horizon = dsl.fetchOne(dialect.commitHorizon(dsl));
    long newest = horizon.value1();
    long oldestRunning = horizon.value2();
    long nextTransaction = horizon.value3();
    // This snapshot was taken at least two periods after the refresh before the previous one read
    // its newest seq (see the class comment for why two).
    if (seen >= 2 && waiting.size() < MAX_WAITING) {
      waiting.addLast(new Observation(newestSeenBefore, nextTransaction));
    }
    newestSeenBefore = newestSeen;
    newestSeen = newest;
    seen = Math.min(seen + 1, 2);
    long settled = Long.MIN_VALUE;
    while (!waiting.isEmpty() && waiting.peekFirst().nextTransaction <= oldestRunning) {
      settled = waiting.pollFirst().newest;
    }
    // A transaction that ran at the previous refresh still runs: it may hold the rest back.
    if (!waiting.isEmpty() && oldestRunning < previousNextTransaction) {
      settled = Math.max(settled, settledByWriters());
    }
    previousNextTransaction = nextTransaction;
    if (settled != Long.MIN_VALUE && settled >= floor) {
      Long oldest = dsl.fetchValue(ClaimQueries.oldestUnparkedBetween(dialect, floor, settled));
      floor = oldest != null ? oldest : settled + 1;
    }
  }

  /**
   * A transaction older than the previous refresh still runs: settles the observations whose
   * writers have all let the table's lock go, and returns the newest seq settled. Asked only then:
   * on a busy server reading the lock table is not free.
   */
  private long settledByWriters() {
    // copyOf, not of: a writer listed twice (two lock rows) is one writer.
    Set<String> now = Set.copyOf(Arrays.asList(dsl.fetchValue(dialect.tableWriters(dsl))));
    for (Observation o : waiting) {
      if (o.writers == null) {
        o.writers = now; // read after its newest seq was: they include every drawer still running
      }
    }
    long settled = Long.MIN_VALUE;
    while (!waiting.isEmpty() && Collections.disjoint(waiting.peekFirst().writers, now)) {
      settled = waiting.pollFirst().newest;
    }
    return settled;
  }
}
