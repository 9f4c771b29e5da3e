package dev.jooqoutbox.internal.repository;

import java.util.function.LongSupplier;
import org.jooq.DSLContext;

/**
 * Where each claim of one {@link MessageClaimer} starts reading, and which of its optional
 * statements it runs. A {@link HorizonFloor} where the database tells which transactions run
 * (PostgreSQL): the window, the probes of each aggregate's oldest pending message and the head scan
 * all start at or after it, past the index entries of messages delivered before it, which a held
 * xmin horizon leaves in place. Elsewhere the time-lagged {@link ClaimFloor} for the window (rows
 * may become pending below it) and unbounded probes. Thread-safe.
 */
final class ClaimStart {

  /** The head scan runs at most 1/{@value} of the time below a {@link HorizonFloor}. */
  private static final long HEAD_SCAN_COST_SHARE = 5;

  /**
   * Where one claim reads from: its window at {@code windowFrom}, its probes of an aggregate's
   * oldest pending message (and its head scan) at {@code probeFrom} ({@link Long#MIN_VALUE}: from
   * the first entry).
   */
  record From(long windowFrom, long probeFrom) {}

  private final DSLContext dsl;
  private final OutboxDialect dialect;
  private final LongSupplier nanoTime;
  private final ClaimFloor lagging;
  private final HorizonFloor horizon;

  private long windowFloor = Long.MIN_VALUE;
  private long windowFirst = Long.MIN_VALUE;
  private long windowFromFloorAt;
  private long headScanDueAt;

  ClaimStart(DSLContext dsl, OutboxDialect dialect, LongSupplier nanoTime) {
    this.dsl = dsl;
    this.dialect = dialect;
    this.nanoTime = nanoTime;
    this.lagging = new ClaimFloor(nanoTime);
    this.horizon =
        dialect.commitHorizon(dsl) == null ? null : new HorizonFloor(dsl, dialect, nanoTime);
  }

  /** Where a claim starting now reads from; refreshes the floor when a refresh is due. */
  From next() {
    if (horizon == null) {
      long from = lagging.current(() -> dsl.fetchValue(ClaimQueries.oldestPendingOrNext(dialect)));
      return new From(from, Long.MIN_VALUE);
    }
    long floor = horizon.current();
    synchronized (this) {
      long now = nanoTime.getAsLong();
      if (floor != windowFloor || now - windowFromFloorAt >= HorizonFloor.PERIOD.toNanos()) {
        // A new floor, or a period since the window last read from it: the window reads from the
        // floor once, for rows of transactions that were still running when the last window was
        // read and have committed since (their aggregates wait for them meanwhile: the probes
        // start at the floor).
        windowFloor = floor;
        windowFirst = floor;
        windowFromFloorAt = now;
      }
      return new From(windowFirst, floor);
    }
  }

  /**
   * Remembers where the window that read from {@code from} found its first pending row: every row
   * pending then is at or after it, so the next window starts there, until the floor moves or a
   * period has passed.
   */
  synchronized void windowRead(From from, long first) {
    if (horizon != null && from.probeFrom() == windowFloor) {
      windowFirst = Math.max(windowFirst, first);
    }
  }

  /**
   * Whether the claim runs the head scan after its window took {@code tookNothing} nothing or found
   * it {@code windowFull}. Below a {@link HorizonFloor} no row becomes pending by a commit, so the
   * scan is wanted only beyond a full window; and as each of its steps to the next aggregate passes
   * over that aggregate's index entries below the floor (in the index, without reading their rows),
   * which a held horizon leaves in place, it runs at most 1/{@value #HEAD_SCAN_COST_SHARE} of the
   * time.
   */
  synchronized boolean headScanWanted(boolean tookNothing, boolean windowFull) {
    if (horizon == null) {
      return tookNothing || windowFull;
    }
    return windowFull && nanoTime.getAsLong() - headScanDueAt >= 0;
  }

  /** Whether {@link #headScanWanted} wants a full window whatever the claim took. */
  boolean headScanNeedsAFullWindow() {
    return horizon != null;
  }

  /** Times a head scan that started at {@code started} ({@link #nanoTime}). */
  synchronized void headScanTook(long started) {
    long now = nanoTime.getAsLong();
    headScanDueAt = now + (HEAD_SCAN_COST_SHARE - 1) * (now - started);
  }

  /**
   * Where a {@link HorizonFloor} stands now (see {@link HorizonFloor#known}), read nothing for it;
   * {@link Long#MIN_VALUE} where there is none.
   */
  long knownFloor() {
    return horizon == null ? Long.MIN_VALUE : horizon.known();
  }

  /** Now, by the injected clock. */
  long nanoTime() {
    return nanoTime.getAsLong();
  }

  /**
   * Whether the claim reading from {@code from} must read the parked rows below where its window
   * starts itself: below a {@link HorizonFloor} its head scan does not see them, and below the
   * window's start (the floor, or later) its window does not.
   */
  boolean readsParkedBelow(From from) {
    return horizon != null
        && (from.probeFrom() != Long.MIN_VALUE || from.windowFrom() != Long.MIN_VALUE);
  }
}
