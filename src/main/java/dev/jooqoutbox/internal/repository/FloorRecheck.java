package dev.jooqoutbox.internal.repository;

import java.time.Duration;
import java.util.function.LongSupplier;
import org.jooq.DSLContext;

/**
 * The {@link HorizonFloor}'s recheck for rows that became pending below it without a writer's
 * commit or a park (a row set back to pending by hand): it reads the pending index below the floor,
 * in chunks of seqs from the lowest up, and a cycle over everything below the floor starts at most
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
 * chunk took, so it takes at most 1/{@value #COST_SHARE} of the claims' time. Not thread-safe: its
 * {@link HorizonFloor} calls it under its lock.
 */
final class FloorRecheck {

  /** The shortest time from the start of one cycle to the start of the next. */
  static final long CYCLE_SECONDS = 60;

  /** The shortest pause between two chunks of a cycle. */
  static final Duration PAUSE = Duration.ofSeconds(1);

  /** How long a chunk should take. */
  static final Duration CHUNK_TARGET = Duration.ofMillis(20);

  /** How many seqs the first chunk reads above zero. */
  static final long FIRST_SPAN = 1 << 16;

  /** The fewest seqs a chunk reads. */
  private static final long MIN_SPAN = 1 << 10;

  private static final long COST_SHARE = 100;

  private final DSLContext dsl;
  private final OutboxDialect dialect;
  private final LongSupplier nanoTime;

  /** Where the next chunk starts; {@link Long#MIN_VALUE} when it starts a cycle. */
  private long from = Long.MIN_VALUE;

  private long span = FIRST_SPAN;
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
    if (from == Long.MIN_VALUE) {
      cycleStartedAt = now;
    }
    long upTo = floor - 1;
    // The first chunk of a cycle also reads every negative seq, which the identity column never
    // hands out unless an operator restarted it there.
    long base = Math.max(from, 0);
    long to = upTo - base < span ? upTo : base + span - 1;
    Long found = dsl.fetchValue(ClaimQueries.oldestUnparkedBetween(dialect, from, to));
    long took = nanoTime.getAsLong() - now;
    span = nextSpan(Math.max(0, to - base + 1), took);
    long pause = Math.max(PAUSE.toNanos(), COST_SHARE * took);
    dueAt = now + pause;
    if (to >= upTo) {
      from = Long.MIN_VALUE;
      long nextCycle = cycleStartedAt + Duration.ofSeconds(CYCLE_SECONDS).toNanos();
      if (nextCycle - dueAt > 0) {
        dueAt = nextCycle;
      }
    } else {
      from = to + 1;
    }
    return found;
  }

  /**
   * How many seqs the next chunk reads, after one that read {@code read} seqs above zero in {@code
   * took} nanoseconds. After a quick chunk, twice what it read, or the span it was allowed when
   * that was more (a chunk that ended at the floor read less than it could). After a slow one, in
   * proportion to {@link #CHUNK_TARGET}, from what it read: a span grown while the history was
   * small must not outlive its first slow chunk.
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
