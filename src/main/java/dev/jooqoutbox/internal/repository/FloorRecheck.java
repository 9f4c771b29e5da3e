package dev.jooqoutbox.internal.repository;

import java.time.Duration;
import java.util.function.LongSupplier;
import org.jooq.DSLContext;

/**
 * The {@link HorizonFloor}'s recheck for rows that became pending below it without a writer's
 * commit or a park (a row set back to pending by hand): it reads the pending index below the floor,
 * in chunks of seqs from the floor down, and a cycle over everything below the floor starts at most
 * once a {@value #CYCLE_SECONDS} s.
 *
 * <p>Why chunks: while another transaction holds the xmin horizon, the pending index keeps an entry
 * for every row that was ever pending, so a read from its first entry costs the whole history. The
 * claim waits for the recheck (it runs inside {@link HorizonFloor#current}), and one read of the
 * whole history stalled the relay for seconds once it had grown; every message written meanwhile
 * then waited. Each chunk is sized to take about {@link #CHUNK_TARGET}, from the seqs the chunk
 * before read and the time it took (see {@link #nextSpan}). Without a held horizon the index holds
 * only the pending rows, so the chunks grow until one covers everything below the floor. After a
 * chunk the recheck waits at least {@link #PAUSE}, and {@value #COST_SHARE} times as long as the
 * chunk took, so it takes at most 1/{@value #COST_SHARE} of the claims' time.
 *
 * <p>Why from the floor down: the entries a held horizon keeps lie between the floor and the seq
 * that was newest when the horizon stopped moving; below that, vacuum has removed them. A cycle
 * read upwards grew its chunks over the cleaned seqs, where they cost nothing, and its first chunk
 * past them read hundreds of thousands of kept entries at once (a stall of up to 1.2 s once a
 * minute in the 30-minute held-horizon benchmark at 8129615). Read downwards, a cycle starts where
 * the kept entries are densest, with the span the first chunk of the cycle before was sized to, and
 * its chunks grow only once they reach the cleaned seqs. Not thread-safe: its {@link HorizonFloor}
 * calls it under its lock.
 */
final class FloorRecheck {

  /** The shortest time from the start of one cycle to the start of the next. */
  static final long CYCLE_SECONDS = 60;

  /** The shortest pause between two chunks of a cycle. */
  static final Duration PAUSE = Duration.ofSeconds(1);

  /** How long a chunk should take. */
  static final Duration CHUNK_TARGET = Duration.ofMillis(20);

  /** How many seqs the first chunk reads below the floor. */
  static final long FIRST_SPAN = 1 << 16;

  /** The fewest seqs a chunk reads. */
  private static final long MIN_SPAN = 1 << 10;

  private static final long COST_SHARE = 100;

  /** {@link #upTo} when the next chunk starts a cycle. */
  private static final long NEW_CYCLE = Long.MIN_VALUE;

  private final DSLContext dsl;
  private final OutboxDialect dialect;
  private final LongSupplier nanoTime;

  /** The highest seq the next chunk reads; {@link #NEW_CYCLE} when it starts a cycle. */
  private long upTo = NEW_CYCLE;

  private long span = FIRST_SPAN;

  /** The span the first chunk of the next cycle reads. */
  private long cycleSpan = FIRST_SPAN;

  private long cycleStartedAt;
  private long dueAt = Duration.ofSeconds(CYCLE_SECONDS).toNanos();

  FloorRecheck(DSLContext dsl, OutboxDialect dialect, LongSupplier nanoTime) {
    this.dsl = dsl;
    this.dialect = dialect;
    this.nanoTime = nanoTime;
  }

  /**
   * Reads the next chunk below {@code floor} when one is due at {@code now}: the oldest pending row
   * there that is not parked, or null when none is or no chunk was due.
   */
  Long below(long floor, long now) {
    if (now - dueAt < 0) {
      return null;
    }
    boolean starting = upTo == NEW_CYCLE;
    if (starting) {
      cycleStartedAt = now;
      span = cycleSpan;
    }
    // The floor may have been lowered to a row this cycle found: the next chunk reads below it.
    long to = starting ? floor - 1 : Math.min(upTo, floor - 1);
    // The last chunk of a cycle also reads every negative seq, which the identity column never
    // hands out unless an operator restarted it there.
    boolean last = to < span;
    long from = last ? Long.MIN_VALUE : to - span + 1;
    Long found = dsl.fetchValue(ClaimQueries.oldestUnparkedBetween(dialect, from, to));
    long took = nanoTime.getAsLong() - now;
    span = nextSpan(last ? Math.max(0, to + 1) : span, took);
    if (starting) {
      cycleSpan = span;
    }
    long pause = Math.max(PAUSE.toNanos(), COST_SHARE * took);
    dueAt = now + pause;
    if (last) {
      upTo = NEW_CYCLE;
      long nextCycle = cycleStartedAt + Duration.ofSeconds(CYCLE_SECONDS).toNanos();
      if (nextCycle - dueAt > 0) {
        dueAt = nextCycle;
      }
    } else {
      upTo = from - 1;
    }
    return found;
  }

  /**
   * How many seqs the next chunk reads, after one that read {@code read} seqs (those above zero,
   * for the last of a cycle) in {@code took} nanoseconds. After a quick chunk, twice what it read,
   * or the span it was allowed when that was more (the last chunk of a cycle, cut at zero, read
   * less than it could). After a slow one, in proportion to {@link #CHUNK_TARGET}, from what it
   * read: a span grown while the history was small must not outlive its first slow chunk.
   */
  private long nextSpan(long read, long took) {
    long target = CHUNK_TARGET.toNanos();
    long base = Math.max(read, MIN_SPAN);
    if (took <= target / 2) {
      return Math.max(span, base > Long.MAX_VALUE / 2 ? base : base * 2);
    }
    return Math.max(MIN_SPAN, (long) (base * ((double) target / took)));
  }
}
