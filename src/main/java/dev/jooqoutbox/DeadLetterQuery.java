package dev.jooqoutbox;

import java.time.Instant;
import java.util.Objects;

/**
 * Which dead letters {@link OutboxAdmin#deadLetters} lists: a filter and one page of it, oldest
 * (lowest seq) first. Immutable; each method returns a changed copy. Start from {@link #all()}.
 *
 * <pre>{@code
 * DeadLetterPage page = admin.deadLetters(DeadLetterQuery.all().topic("order.placed").limit(50));
 * }</pre>
 *
 * @param topic only this topic; null for every topic
 * @param aggregate only this aggregate; null for every aggregate
 * @param deadFrom only letters that died at or after this; null for no lower bound
 * @param deadBefore only letters that died before this; null for no upper bound
 * @param afterSeq only letters with a seq above this (the page cursor); 0 from the start
 * @param limit at most this many letters in the page, 1 to {@link #MAX_LIMIT}
 */
public record DeadLetterQuery(
    String topic,
    String aggregate,
    Instant deadFrom,
    Instant deadBefore,
    long afterSeq,
    int limit) {

  /** The largest page. */
  public static final int MAX_LIMIT = 10_000;

  /** The default page size. */
  public static final int DEFAULT_LIMIT = 100;

  /**
   * @throws IllegalArgumentException when the limit is outside 1 to {@link #MAX_LIMIT}, the cursor
   *     is negative, or {@code deadBefore} is not after {@code deadFrom}
   */
  public DeadLetterQuery {
    if (limit < 1 || limit > MAX_LIMIT) {
      throw new IllegalArgumentException(
          "limit must be between 1 and " + MAX_LIMIT + ", was " + limit);
    }
    if (afterSeq < 0) {
      throw new IllegalArgumentException("afterSeq must be 0 or positive, was " + afterSeq);
    }
    if (deadFrom != null && deadBefore != null && !deadBefore.isAfter(deadFrom)) {
      throw new IllegalArgumentException(
          "deadBefore must be after deadFrom, was " + deadBefore + " <= " + deadFrom);
    }
  }

  /** Every dead letter, the first {@link #DEFAULT_LIMIT} of them. */
  public static DeadLetterQuery all() {
    return new DeadLetterQuery(null, null, null, null, 0, DEFAULT_LIMIT);
  }

  public DeadLetterQuery topic(String topic) {
    return new DeadLetterQuery(
        Objects.requireNonNull(topic, "topic"), aggregate, deadFrom, deadBefore, afterSeq, limit);
  }

  public DeadLetterQuery aggregate(String aggregate) {
    return new DeadLetterQuery(
        topic,
        Objects.requireNonNull(aggregate, "aggregate"),
        deadFrom,
        deadBefore,
        afterSeq,
        limit);
  }

  /** Letters that died at or after {@code from} and before {@code before}; either may be null. */
  public DeadLetterQuery deadBetween(Instant from, Instant before) {
    return new DeadLetterQuery(topic, aggregate, from, before, afterSeq, limit);
  }

  /** The page after the letter with seq {@code seq}. */
  public DeadLetterQuery afterSeq(long seq) {
    return new DeadLetterQuery(topic, aggregate, deadFrom, deadBefore, seq, limit);
  }

  public DeadLetterQuery limit(int limit) {
    return new DeadLetterQuery(topic, aggregate, deadFrom, deadBefore, afterSeq, limit);
  }
}
