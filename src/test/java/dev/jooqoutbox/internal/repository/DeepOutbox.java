package dev.jooqoutbox.internal.repository;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.jooq.impl.DSL.concat;
import static org.jooq.impl.DSL.generateSeries;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.select;
import static org.jooq.impl.DSL.val;

import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.testing.BulkMessages;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.JSON;

/**
 * An outbox table as deep as the claim must cope with, loaded in seconds by set-based {@code INSERT
 * ... SELECT} over a generated series, for the plan tests: sent rows awaiting purge, pending rows
 * behind them over many aggregates, and a drain of the oldest pending rows (the way a relay marks
 * them, one update each, leaving PostgreSQL's pending-index entries to vacuum).
 */
final class DeepOutbox {

  /** When the claims of the plan tests run: every loaded row is available by then. */
  static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");

  private DeepOutbox() {}

  /**
   * Inserts rows {@code first} to {@code first + count - 1} (their ids and, on an empty table,
   * their seqs) spread round-robin over {@code aggregates} aggregates of topic "t"; sent an hour
   * ago when {@code sent}, else pending.
   */
  static void insert(DSLContext dsl, int first, int count, int aggregates, boolean sent) {
    if (count > 1_000_000) {
      throw new IllegalArgumentException("at most 1,000,000 rows at a time, not " + count);
    }
    // Three series of 100 crossed, not one of a million: MariaDB stops a recursive CTE (jOOQ's
    // series there) after max_recursive_iterations, 1000 on the test server.
    var hundreds = generateSeries(0, 99).as("h", "n");
    var tens = generateSeries(0, 99).as("t", "n");
    var ones = generateSeries(0, 99).as("o", "n");
    Field<Integer> offset =
        hundreds
            .field("n", Integer.class)
            .times(10_000)
            .plus(tens.field("n", Integer.class).times(100))
            .plus(ones.field("n", Integer.class));
    Field<Integer> i = offset.plus(first);
    Instant sentAt = sent ? NOW.minus(Duration.ofHours(1)) : null;
    List<Field<?>> columns = new ArrayList<>(BulkMessages.COLUMNS);
    columns.add(OUTBOX_MESSAGE.SENT_AT);
    dsl.insertInto(OUTBOX_MESSAGE, columns)
        .select(
            select(
                    concat(inline("m-"), i.cast(String.class)),
                    concat(inline("aggregate-"), i.mod(aggregates).cast(String.class)),
                    inline("t"),
                    inline(JSON.json("{\"order\":12345,\"customer\":\"c-678\",\"amount\":99.5}")),
                    val(NOW.minus(Duration.ofHours(2)), OUTBOX_MESSAGE.CREATED_AT),
                    val(NOW.minus(Duration.ofHours(2)), OUTBOX_MESSAGE.AVAILABLE_AT),
                    inline(sent ? 1 : 0),
                    val(sentAt, OUTBOX_MESSAGE.SENT_AT))
                .from(hundreds, tens, ones)
                .where(offset.lt(count))
                // Seqs in the order of i: the aggregates take turns.
                .orderBy(offset))
        .execute();
  }

  /**
   * Marks the {@code count} oldest pending rows sent as a relay does: a lease, then the mark (two
   * updates a row, each leaving PostgreSQL a row version and index entries for vacuum), each a set
   * of rows at once.
   */
  static void drain(DSLContext dsl, int count) {
    Long last =
        dsl.select(OUTBOX_MESSAGE.SEQ)
            .from(OUTBOX_MESSAGE)
            .where(ClaimQueries.pending(OUTBOX_MESSAGE))
            .orderBy(OUTBOX_MESSAGE.SEQ)
            .limit(1)
            .offset(count - 1)
            .fetchSingle(OUTBOX_MESSAGE.SEQ);
    ClaimQueries.takeLease(
            dsl,
            ClaimQueries.pending(OUTBOX_MESSAGE).and(OUTBOX_MESSAGE.SEQ.le(last)),
            new OutboxDialect.Lease("drain", NOW.minus(Duration.ofMinutes(1))))
        .execute();
    dsl.update(OUTBOX_MESSAGE)
        .set(OUTBOX_MESSAGE.CLAIM_TOKEN, (String) null)
        .set(OUTBOX_MESSAGE.LOCKED_UNTIL, (Instant) null)
        .set(OUTBOX_MESSAGE.SENT_AT, NOW.minus(Duration.ofMinutes(1)))
        .where(MessageSettler.ownedBy("drain"))
        .and(OUTBOX_MESSAGE.SEQ.le(last))
        .execute();
  }

  /**
   * Checks a claim at depth: in seq order, and each aggregate's messages in it are that aggregate's
   * oldest pending ones (a run without a gap).
   */
  static void assertRuns(DSLContext dsl, List<OutboxMessage> claimed) {
    assertThat(claimed).extracting(OutboxMessage::seq).isSorted();
    Map<String, List<Long>> byAggregate =
        claimed.stream()
            .collect(
                Collectors.groupingBy(
                    OutboxMessage::aggregate,
                    Collectors.mapping(OutboxMessage::seq, Collectors.toList())));
    byAggregate.forEach(
        (aggregate, seqs) ->
            assertThat(seqs)
                .as("claimed messages of %s", aggregate)
                .isEqualTo(
                    dsl.select(OUTBOX_MESSAGE.SEQ)
                        .from(OUTBOX_MESSAGE)
                        .where(OUTBOX_MESSAGE.AGGREGATE.eq(aggregate))
                        .and(ClaimQueries.pending(OUTBOX_MESSAGE))
                        .orderBy(OUTBOX_MESSAGE.SEQ)
                        .limit(seqs.size())
                        .fetch(OUTBOX_MESSAGE.SEQ)));
  }

  /** Where a claim's window starts now: the oldest pending seq (what {@link ClaimFloor} sees). */
  static long floor(DSLContext dsl) {
    return dsl.fetchValue(ClaimQueries.oldestPendingOrNext(OutboxDialect.of(dsl.dialect())));
  }
}
