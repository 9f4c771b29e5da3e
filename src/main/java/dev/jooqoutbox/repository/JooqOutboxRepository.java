package dev.jooqoutbox.repository;

import static dev.jooqoutbox.schema.Tables.INBOX_MESSAGE;
import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.jooq.impl.DSL.count;
import static org.jooq.impl.DSL.min;
import static org.jooq.impl.DSL.row;
import static org.jooq.impl.DSL.select;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.jooqoutbox.OutboxException;
import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.schema.tables.records.OutboxMessageRecord;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import org.jooq.CommonTableExpression;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.JSON;
import org.jooq.Name;
import org.jooq.Record;
import org.jooq.Record1;
import org.jooq.Record2;
import org.jooq.Select;
import org.jooq.SelectField;
import org.jooq.SelectForUpdateStep;
import org.jooq.exception.DataAccessException;
import org.jooq.exception.IntegrityConstraintViolationException;
import org.jooq.exception.SQLStateClass;
import org.jooq.impl.DSL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The outbox's SQL: every statement the writer, the relay and the operator tools run, as typed jOOQ
 * DSL over the generated classes, with the locking each dialect needs.
 *
 * <p>Guarantees:
 *
 * <ul>
 *   <li>{@link #claim} hands out only <em>ready</em> messages: not sent, not dead, available, not
 *       leased, of a requested topic, and with no older pending (not sent, not dead) message of the
 *       same aggregate. Concurrent claimers on any number of connections or machines never receive
 *       the same row while its lease holds.
 *   <li>Every settle ({@link #markSent}, {@link #retryLater}, {@link #deadLetter}, {@link
 *       #deadLetterExhausted}, {@link #release}) matches the claim token: a relay whose row was
 *       claimed again by another relay after its lease ran out changes nothing (0 rows is a lost
 *       race, not an error).
 *   <li>Dead letters are kept by {@link #purge}; only {@link #requeue} or a deliberate delete
 *       removes them from the dead letters.
 * </ul>
 *
 * <p>Thread-safe; holds no state beyond its {@code DSLContext}. Statements outside a caller's
 * transaction run in their own transaction (autocommit).
 */
public final class JooqOutboxRepository {

  private static final Logger log = LoggerFactory.getLogger(JooqOutboxRepository.class);

  private static final TypeReference<Map<String, String>> HEADERS = new TypeReference<>() {};
  private static final SelectField<?>[] MESSAGE_FIELDS = {
    OUTBOX_MESSAGE.SEQ,
    OUTBOX_MESSAGE.ID,
    OUTBOX_MESSAGE.AGGREGATE,
    OUTBOX_MESSAGE.TOPIC,
    OUTBOX_MESSAGE.PAYLOAD,
    OUTBOX_MESSAGE.HEADERS,
    OUTBOX_MESSAGE.ATTEMPTS,
    OUTBOX_MESSAGE.CREATED_AT
  };

  private final DSLContext dsl;
  private final DialectSupport dialect;
  private final ObjectMapper mapper;

  public JooqOutboxRepository(DSLContext dsl) {
    this(dsl, new ObjectMapper());
  }

  /**
   * @param dsl where relay-side statements run; each runs in its own transaction
   * @param mapper reads headers and is handed to messages for {@link OutboxMessage#payloadAs}
   */
  public JooqOutboxRepository(DSLContext dsl, ObjectMapper mapper) {
    this.dsl = Objects.requireNonNull(dsl, "dsl");
    this.dialect = DialectSupport.of(dsl.dialect());
    this.mapper = Objects.requireNonNull(mapper, "mapper");
  }

  // ---------------------------------------------------------------- writer side

  /**
   * Inserts {@code message} on the caller's transaction {@code tx}, unless its id is already
   * stored. Never aborts the caller's transaction on a duplicate id.
   *
   * @return true when inserted, false when a row with this id already exists
   */
  public boolean insert(DSLContext tx, NewMessage message) {
    var insert =
        tx.insertInto(OUTBOX_MESSAGE)
            .set(OUTBOX_MESSAGE.ID, message.id())
            .set(OUTBOX_MESSAGE.AGGREGATE, message.aggregate())
            .set(OUTBOX_MESSAGE.TOPIC, message.topic())
            .set(OUTBOX_MESSAGE.PAYLOAD, JSON.json(message.payloadJson()))
            .set(OUTBOX_MESSAGE.HEADERS, headersJson(message.headers()))
            .set(OUTBOX_MESSAGE.CREATED_AT, message.createdAt())
            .set(OUTBOX_MESSAGE.AVAILABLE_AT, message.availableAt())
            .set(OUTBOX_MESSAGE.ATTEMPTS, 0);
    if (dialect.insertOnConflictDoNothing) {
      return insert.onConflict(OUTBOX_MESSAGE.ID).doNothing().execute() == 1;
    }
    try {
      return insert.execute() == 1;
    } catch (IntegrityConstraintViolationException duplicate) {
      // MariaDB rolls back only this statement; the caller's transaction goes on.
      if (findStored(tx, message.id()).isPresent()) {
        return false;
      }
      throw duplicate;
    }
  }

  /** The stored content of message {@code id}, read on {@code tx}, for an idempotency check. */
  public Optional<NewMessage> findStored(DSLContext tx, String id) {
    var select = tx.selectFrom(OUTBOX_MESSAGE).where(OUTBOX_MESSAGE.ID.eq(id));
    return (dialect.lockingReadOfDuplicate ? select.forShare() : select)
        .fetchOptional()
        .map(
            r ->
                new NewMessage(
                    r.getId(),
                    r.getAggregate(),
                    r.getTopic(),
                    r.getPayload().data(),
                    readHeaders(r.getHeaders()),
                    r.getCreatedAt(),
                    r.getAvailableAt()));
  }

  /**
   * Records that {@code consumer} handles {@code messageId}, on the consumer's transaction.
   *
   * @return true when recorded now, false when it was already recorded
   */
  public boolean recordSeen(DSLContext tx, String consumer, String messageId, Instant now) {
    var insert =
        tx.insertInto(INBOX_MESSAGE)
            .set(INBOX_MESSAGE.CONSUMER, consumer)
            .set(INBOX_MESSAGE.MESSAGE_ID, messageId)
            .set(INBOX_MESSAGE.SEEN_AT, now);
    if (dialect.insertOnConflictDoNothing) {
      return insert.onConflictDoNothing().execute() == 1;
    }
    try {
      return insert.execute() == 1;
    } catch (IntegrityConstraintViolationException duplicate) {
      return false; // the primary key is the only constraint
    }
  }

  // ---------------------------------------------------------------- relay side

  /**
   * Claims up to {@code limit} ready messages of {@code topics} in {@code seq} order, leasing them
   * to {@code claimToken} until {@code now + lease} and counting one attempt each. The returned
   * messages carry the new attempt count, in {@code seq} order.
   *
   * <p>A claimed row that cannot become a message (its headers, written by hand, are not a JSON
   * object of strings) is dead-lettered at once with the reason and left out of the result, so it
   * cannot fail every later claim; the returned list may then be shorter than the rows claimed.
   */
  public List<OutboxMessage> claim(
      Set<String> topics, int limit, Duration lease, String claimToken, Instant now) {
    if (topics.isEmpty() || limit <= 0) {
      return List.of();
    }
    Instant lockedUntil = now.plus(lease);
    // Two passes, each a bounded amount of work however deep the backlog: first the oldest
    // pending rows in seq order (what the relay should deliver first), then, only when that did
    // not fill the batch, the heads of other aggregates found by a skip scan (see headCandidates).
    // The second pass sees the first pass's rows as leased, so nothing is claimed twice.
    List<? extends Record> rows =
        retryingDeadlocks(
            () ->
                switch (dialect.claimStyle) {
                  case UPDATE_RETURNING_SKIP_LOCKED -> {
                    List<Record> claimed = new ArrayList<>();
                    claimed.addAll(
                        leaseReturning(
                            dsl, claimCandidates(topics, limit, now), claimToken, lockedUntil));
                    if (claimed.size() < limit) {
                      List<Long> heads = dsl.fetchValues(headSeqs(limit));
                      if (!heads.isEmpty()) {
                        claimed.addAll(
                            leaseReturning(
                                dsl,
                                readyAmong(heads, topics, limit - claimed.size(), now),
                                claimToken,
                                lockedUntil));
                      }
                    }
                    yield claimed;
                  }
                  case SELECT_SKIP_LOCKED_THEN_UPDATE ->
                      dsl.transactionResult(
                          tx -> {
                            // Read committed: no gap locks that would block concurrent writers'
                            // inserts.
                            tx.dsl()
                                .connection(
                                    c ->
                                        c.setTransactionIsolation(
                                            Connection.TRANSACTION_READ_COMMITTED));
                            List<Long> seqs =
                                new ArrayList<>(
                                    tx.dsl()
                                        .fetchValues(
                                            claimCandidates(topics, limit, now)
                                                .forUpdate()
                                                .skipLocked()));
                            if (!seqs.isEmpty()) {
                              takeLease(
                                      tx.dsl(),
                                      OUTBOX_MESSAGE.SEQ.in(seqs),
                                      claimToken,
                                      lockedUntil)
                                  .execute();
                            }
                            List<Long> heads =
                                seqs.size() < limit
                                    ? tx.dsl().fetchValues(headSeqs(limit))
                                    : List.of();
                            if (!heads.isEmpty()) {
                              List<Long> more =
                                  tx.dsl()
                                      .fetchValues(
                                          readyAmong(heads, topics, limit - seqs.size(), now)
                                              .forUpdate()
                                              .skipLocked());
                              if (!more.isEmpty()) {
                                takeLease(
                                        tx.dsl(),
                                        OUTBOX_MESSAGE.SEQ.in(more),
                                        claimToken,
                                        lockedUntil)
                                    .execute();
                                seqs.addAll(more);
                              }
                            }
                            if (seqs.isEmpty()) {
                              return List.<Record>of();
                            }
                            return tx.dsl()
                                .select(MESSAGE_FIELDS)
                                .from(OUTBOX_MESSAGE)
                                .where(OUTBOX_MESSAGE.SEQ.in(seqs))
                                .fetch();
                          });
                  case IMMEDIATE_TRANSACTION_UPDATE_RETURNING ->
                      inImmediateTransaction(
                          tx -> {
                            List<Record> claimed = new ArrayList<>();
                            claimed.addAll(
                                takeLease(
                                        tx,
                                        OUTBOX_MESSAGE.SEQ.in(claimCandidates(topics, limit, now)),
                                        claimToken,
                                        lockedUntil)
                                    .returning(MESSAGE_FIELDS)
                                    .fetch());
                            List<Long> heads =
                                claimed.size() < limit
                                    ? tx.fetchValues(headSeqs(limit))
                                    : List.of();
                            if (!heads.isEmpty()) {
                              claimed.addAll(
                                  takeLease(
                                          tx,
                                          OUTBOX_MESSAGE.SEQ.in(
                                              readyAmong(
                                                  heads, topics, limit - claimed.size(), now)),
                                          claimToken,
                                          lockedUntil)
                                      .returning(MESSAGE_FIELDS)
                                      .fetch());
                            }
                            return claimed;
                          });
                });
    List<OutboxMessage> messages = new ArrayList<>(rows.size());
    for (Record r : rows) {
      try {
        messages.add(toMessage(r));
      } catch (OutboxException corrupt) {
        String error = "corrupt row: " + corrupt.getMessage();
        long seq = r.get(OUTBOX_MESSAGE.SEQ);
        boolean deadLettered = deadLetter(claimToken, seq, error, now);
        log.error(
            "outbox message {} (seq {}) cannot be delivered and is {}: {}",
            r.get(OUTBOX_MESSAGE.ID),
            seq,
            deadLettered ? "dead-lettered" : "left to its new owner",
            error);
      }
    }
    messages.sort(Comparator.comparingLong(OutboxMessage::seq));
    return messages;
  }

  /**
   * The seqs of the ready messages a claim takes, in {@code seq} order, before any locking.
   * Package-private so a test can {@code EXPLAIN} it.
   */
  SelectForUpdateStep<Record1<Long>> claimCandidates(Set<String> topics, int limit, Instant now) {
    var o = OUTBOX_MESSAGE.as("o");
    var older = OUTBOX_MESSAGE.as("older");
    var window = OUTBOX_MESSAGE.as("w");
    // Only the oldest scanWindow(limit) pending rows are looked at. Without the bound, a backlog
    // whose front belongs to a few busy aggregates (all but their oldest message blocked) made
    // every claim walk the whole backlog: 100,000 pending rows of 10 aggregates cost a second
    // per claim on PostgreSQL. Heads beyond the window are found by headCandidates.
    Field<Long> windowEnd =
        DSL.field(
            select(window.SEQ)
                .from(window)
                .where(pending(window))
                .orderBy(window.SEQ)
                .limit(1)
                .offset(scanWindow(limit)));
    Condition ready =
        ready(o, topics, now)
            .and(o.SEQ.lt(DSL.coalesce(windowEnd, DSL.inline(Long.MAX_VALUE))))
            // The oldest pending message of its aggregate. Not "NOT EXISTS an older pending one":
            // PostgreSQL turns that into an anti join, and when its statistics say the pending
            // index is empty (a fresh migration, a burst after a quiet spell) it scans the whole
            // index for every candidate instead of probing it. A correlated scalar subquery is
            // never pulled up, so it is always one index probe per candidate.
            .and(
                o.SEQ.eq(
                    select(older.SEQ)
                        .from(older)
                        .where(older.AGGREGATE.eq(o.AGGREGATE))
                        .and(pending(older))
                        .orderBy(older.SEQ)
                        .limit(1)));
    return select(o.SEQ).from(o).where(ready).orderBy(o.SEQ).limit(limit);
  }

  /** How many of the oldest pending rows the first claim pass looks at. */
  static int scanWindow(int limit) {
    return Math.max(4 * limit, 200);
  }

  /** How many aggregates the second claim pass enumerates at most. */
  static int headScanBound(int limit) {
    return Math.max(10 * limit, 1000);
  }

  /**
   * The seqs of the oldest pending message of up to {@link #headScanBound} aggregates, found by a
   * skip scan over the pending (aggregate, seq) index: a recursive query steps from one aggregate
   * to the next with one index probe each, and takes each aggregate's oldest pending seq with
   * another. Its cost grows with the number of aggregates it visits (at most {@link
   * #headScanBound}), not with the number of pending rows, which is what makes it cheap exactly
   * when the seq-order window is clogged by a few busy aggregates.
   */
  Select<Record1<Long>> headSeqs(int limit) {
    if (dialect.headScan == DialectSupport.HeadScan.LOOSE_INDEX_GROUP_BY) {
      var h = OUTBOX_MESSAGE.as("h");
      return select(min(h.SEQ))
          .from(h)
          .where(pending(h))
          .groupBy(h.AGGREGATE)
          .limit(headScanBound(limit));
    }
    var first = OUTBOX_MESSAGE.as("f");
    var next = OUTBOX_MESSAGE.as("n");
    var head = OUTBOX_MESSAGE.as("h");
    Name agg = DSL.name("agg");
    Field<String> aggAggregate = DSL.field(DSL.name("agg", "aggregate"), String.class);
    Field<Integer> aggDepth = DSL.field(DSL.name("agg", "depth"), Integer.class);
    CommonTableExpression<Record2<String, Integer>> aggregates =
        agg.fields("aggregate", "depth")
            .as(
                select(
                        DSL.field(select(min(first.AGGREGATE)).from(first).where(pending(first))),
                        DSL.inline(1))
                    .unionAll(
                        select(
                                DSL.field(
                                    select(min(next.AGGREGATE))
                                        .from(next)
                                        .where(pending(next))
                                        .and(next.AGGREGATE.gt(aggAggregate))),
                                aggDepth.plus(DSL.inline(1)))
                            .from(DSL.table(agg))
                            .where(aggAggregate.isNotNull())
                            .and(aggDepth.lt(DSL.inline(headScanBound(limit))))));
    Field<Long> headSeq =
        dialect.headScan == DialectSupport.HeadScan.RECURSIVE_BY_INDEX_ORDER
            ? DSL.field(
                select(head.SEQ)
                    .from(head)
                    .where(head.AGGREGATE.ge(aggAggregate))
                    .and(pending(head))
                    .orderBy(head.AGGREGATE, head.SEQ)
                    .limit(1))
            : DSL.field(
                select(min(head.SEQ))
                    .from(head)
                    .where(head.AGGREGATE.eq(aggAggregate))
                    .and(pending(head)));
    return DSL.withRecursive(aggregates)
        .select(headSeq)
        .from(DSL.table(agg))
        .where(aggAggregate.isNotNull());
  }

  /**
   * Which of the aggregate heads {@code heads} are ready, oldest first. A separate statement from
   * {@link #headSeqs} on purpose: with the recursive query inlined as an {@code IN} subquery,
   * PostgreSQL sometimes planned it as a nested loop that recomputed every head per outer row.
   */
  SelectForUpdateStep<Record1<Long>> readyAmong(
      List<Long> heads, Set<String> topics, int limit, Instant now) {
    var o = OUTBOX_MESSAGE.as("o");
    return select(o.SEQ)
        .from(o)
        .where(ready(o, topics, now))
        .and(o.SEQ.in(heads))
        .orderBy(o.SEQ)
        .limit(limit);
  }

  private static Condition pending(dev.jooqoutbox.schema.tables.OutboxMessage t) {
    return t.SENT_AT.isNull().and(t.DEAD_AT.isNull());
  }

  /** Pending, available, not leased, of one of {@code topics}; not yet "oldest of aggregate". */
  private static Condition ready(
      dev.jooqoutbox.schema.tables.OutboxMessage o, Set<String> topics, Instant now) {
    return pending(o)
        .and(o.AVAILABLE_AT.le(now))
        .and(o.LOCKED_UNTIL.isNull().or(o.LOCKED_UNTIL.le(now)))
        .and(o.TOPIC.in(topics));
  }

  private static List<Record> leaseReturning(
      DSLContext ctx,
      SelectForUpdateStep<Record1<Long>> candidates,
      String claimToken,
      Instant lockedUntil) {
    return new ArrayList<>(
        takeLease(
                ctx,
                OUTBOX_MESSAGE.SEQ.in(candidates.forUpdate().skipLocked()),
                claimToken,
                lockedUntil)
            .returning(MESSAGE_FIELDS)
            .fetch());
  }

  private static org.jooq.UpdateConditionStep<OutboxMessageRecord> takeLease(
      DSLContext ctx, Condition which, String claimToken, Instant lockedUntil) {
    return ctx.update(OUTBOX_MESSAGE)
        .set(OUTBOX_MESSAGE.CLAIM_TOKEN, claimToken)
        .set(OUTBOX_MESSAGE.LOCKED_UNTIL, lockedUntil)
        .set(OUTBOX_MESSAGE.ATTEMPTS, OUTBOX_MESSAGE.ATTEMPTS.plus(1))
        .where(which);
  }

  @FunctionalInterface
  private interface SqliteWork<T> {
    T run(DSLContext tx);
  }

  private <T> T inImmediateTransaction(SqliteWork<T> work) {
    return dsl.connectionResult(
        connection -> {
          if (!connection.getAutoCommit()) {
            throw new OutboxException("the SQLite claim must not run inside another transaction");
          }
          try (Statement statement = connection.createStatement()) {
            // Plain SQL: jOOQ has no way to say BEGIN IMMEDIATE (see DialectSupport.SQLITE).
            statement.execute("BEGIN IMMEDIATE");
            try {
              T result = work.run(DSL.using(connection, dsl.dialect(), dsl.settings()));
              statement.execute("COMMIT");
              return result;
            } catch (RuntimeException | Error e) {
              statement.execute("ROLLBACK");
              throw e;
            }
          }
        });
  }

  /**
   * Marks the claimed rows {@code seqs} sent, in one statement.
   *
   * @return how many rows this token still owned and are now sent
   */
  public int markSent(String claimToken, Collection<Long> seqs, Instant now) {
    if (seqs.isEmpty()) {
      return 0;
    }
    var update =
        dsl.update(OUTBOX_MESSAGE)
            .set(OUTBOX_MESSAGE.SENT_AT, now)
            .set(OUTBOX_MESSAGE.CLAIM_TOKEN, (String) null)
            .set(OUTBOX_MESSAGE.LOCKED_UNTIL, (Instant) null)
            .set(OUTBOX_MESSAGE.LAST_ERROR, (String) null)
            .where(OUTBOX_MESSAGE.SEQ.in(seqs))
            .and(ownedBy(claimToken));
    return retryingDeadlocks(update::execute);
  }

  /**
   * Records a failed attempt and makes the row claimable again at {@code nextAttemptAt}.
   *
   * @return false when the token no longer owns the row (another relay took it over)
   */
  public boolean retryLater(String claimToken, long seq, String error, Instant nextAttemptAt) {
    return settleOne(
        claimToken,
        seq,
        dsl.update(OUTBOX_MESSAGE)
            .set(OUTBOX_MESSAGE.LAST_ERROR, error)
            .set(OUTBOX_MESSAGE.AVAILABLE_AT, nextAttemptAt)
            .set(OUTBOX_MESSAGE.CLAIM_TOKEN, (String) null)
            .set(OUTBOX_MESSAGE.LOCKED_UNTIL, (Instant) null));
  }

  /**
   * Dead-letters the row after its last failed attempt, with {@code error}.
   *
   * @return false when the token no longer owns the row
   */
  public boolean deadLetter(String claimToken, long seq, String error, Instant now) {
    return settleOne(
        claimToken,
        seq,
        dsl.update(OUTBOX_MESSAGE)
            .set(OUTBOX_MESSAGE.LAST_ERROR, error)
            .set(OUTBOX_MESSAGE.DEAD_AT, now)
            .set(OUTBOX_MESSAGE.CLAIM_TOKEN, (String) null)
            .set(OUTBOX_MESSAGE.LOCKED_UNTIL, (Instant) null));
  }

  /**
   * Dead-letters a row whose attempts were used up by crashes or expired leases, without running
   * it. The claim that found it counted one more attempt than it made, so the count is set back to
   * {@code maxAttempts}.
   */
  public boolean deadLetterExhausted(
      String claimToken, long seq, int maxAttempts, String error, Instant now) {
    return settleOne(
        claimToken,
        seq,
        dsl.update(OUTBOX_MESSAGE)
            .set(OUTBOX_MESSAGE.ATTEMPTS, maxAttempts)
            .set(OUTBOX_MESSAGE.LAST_ERROR, error)
            .set(OUTBOX_MESSAGE.DEAD_AT, now)
            .set(OUTBOX_MESSAGE.CLAIM_TOKEN, (String) null)
            .set(OUTBOX_MESSAGE.LOCKED_UNTIL, (Instant) null));
  }

  private boolean settleOne(
      String claimToken, long seq, org.jooq.UpdateSetMoreStep<OutboxMessageRecord> update) {
    var settle = update.where(OUTBOX_MESSAGE.SEQ.eq(seq)).and(ownedBy(claimToken));
    int rows = retryingDeadlocks(settle::execute);
    if (rows > 1) {
      throw new IllegalStateException("settled " + rows + " rows for seq " + seq);
    }
    return rows == 1;
  }

  /**
   * Gives back claimed rows that were not handled (shutdown mid-batch), and the attempt their claim
   * counted, so another relay delivers them at once without using an attempt.
   *
   * @return how many rows were released
   */
  public int release(String claimToken, Collection<Long> seqs) {
    if (seqs.isEmpty()) {
      return 0;
    }
    var update =
        dsl.update(OUTBOX_MESSAGE)
            .set(OUTBOX_MESSAGE.CLAIM_TOKEN, (String) null)
            .set(OUTBOX_MESSAGE.LOCKED_UNTIL, (Instant) null)
            .set(OUTBOX_MESSAGE.ATTEMPTS, OUTBOX_MESSAGE.ATTEMPTS.minus(1))
            .where(OUTBOX_MESSAGE.SEQ.in(seqs))
            .and(ownedBy(claimToken));
    return retryingDeadlocks(update::execute);
  }

  private static final int DEADLOCK_RETRIES = 5;

  /**
   * Runs one claim or settle again when the database chose it as a deadlock victim (SQLSTATE class
   * 40). MariaDB picks victims among concurrent claims and settles of neighbouring rows even with
   * SKIP LOCKED; the victim's work was rolled back whole, and every statement here is a
   * compare-and-swap on the claim token, so running it again is safe.
   */
  private static <T> T retryingDeadlocks(Supplier<T> work) {
    for (int attempt = 1; ; attempt++) {
      try {
        return work.get();
      } catch (DataAccessException e) {
        if (e.sqlStateClass() != SQLStateClass.C40_TRANSACTION_ROLLBACK
            || attempt >= DEADLOCK_RETRIES) {
          throw e;
        }
        log.debug("outbox statement was a deadlock victim; retrying (attempt {})", attempt, e);
        try {
          Thread.sleep(ThreadLocalRandom.current().nextLong(1, 10L * attempt));
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }

  private static Condition ownedBy(String claimToken) {
    return OUTBOX_MESSAGE
        .CLAIM_TOKEN
        .eq(claimToken)
        .and(OUTBOX_MESSAGE.SENT_AT.isNull())
        .and(OUTBOX_MESSAGE.DEAD_AT.isNull());
  }

  // ---------------------------------------------------------------- operator side

  /**
   * Dead letters in {@code seq} order, after {@code afterSeq} (keyset pagination: pass the last seq
   * of the previous page, or 0), of {@code topic} when not null.
   */
  public List<DeadLetter> deadLetters(String topic, long afterSeq, int limit) {
    Condition where = OUTBOX_MESSAGE.DEAD_AT.isNotNull().and(OUTBOX_MESSAGE.SEQ.gt(afterSeq));
    if (topic != null) {
      where = where.and(OUTBOX_MESSAGE.TOPIC.eq(topic));
    }
    return dsl.selectFrom(OUTBOX_MESSAGE)
        .where(where)
        .orderBy(OUTBOX_MESSAGE.SEQ)
        .limit(limit)
        .fetch(
            r ->
                new DeadLetter(
                    r.getSeq(),
                    r.getId(),
                    r.getAggregate(),
                    r.getTopic(),
                    r.getAttempts(),
                    r.getLastError(),
                    r.getCreatedAt(),
                    r.getDeadAt(),
                    r.getPayload().data()));
  }

  /**
   * Puts dead letter {@code id} back to pending: attempt count 0, available at {@code now}.
   *
   * @return false when no dead letter has this id
   */
  public boolean requeue(String id, Instant now) {
    return requeueWhere(OUTBOX_MESSAGE.ID.eq(id), now) == 1;
  }

  /** Requeues every dead letter of {@code topic}; returns how many. */
  public int requeueTopic(String topic, Instant now) {
    return requeueWhere(OUTBOX_MESSAGE.TOPIC.eq(topic), now);
  }

  /** Requeues every dead letter; returns how many. */
  public int requeueAll(Instant now) {
    return requeueWhere(DSL.noCondition(), now);
  }

  private int requeueWhere(Condition which, Instant now) {
    return dsl.update(OUTBOX_MESSAGE)
        .set(OUTBOX_MESSAGE.DEAD_AT, (Instant) null)
        .set(OUTBOX_MESSAGE.ATTEMPTS, 0)
        .set(OUTBOX_MESSAGE.LAST_ERROR, (String) null)
        .set(OUTBOX_MESSAGE.AVAILABLE_AT, now)
        .set(OUTBOX_MESSAGE.CLAIM_TOKEN, (String) null)
        .set(OUTBOX_MESSAGE.LOCKED_UNTIL, (Instant) null)
        .where(OUTBOX_MESSAGE.DEAD_AT.isNotNull())
        .and(OUTBOX_MESSAGE.SENT_AT.isNull())
        .and(which)
        .execute();
  }

  /**
   * Deletes sent messages sent before {@code cutoff} and inbox rows seen before it, {@code
   * batchSize} rows per statement (each its own transaction, so no long lock is held). Dead letters
   * and pending messages are never deleted.
   */
  public PurgeResult purge(Instant cutoff, int batchSize) {
    if (batchSize <= 0) {
      throw new IllegalArgumentException("batchSize must be positive, was " + batchSize);
    }
    long outbox = 0;
    int deleted;
    do {
      Condition old = OUTBOX_MESSAGE.SENT_AT.lt(cutoff);
      deleted =
          dialect.limitInSubquery
              ? dsl.deleteFrom(OUTBOX_MESSAGE)
                  .where(
                      OUTBOX_MESSAGE.SEQ.in(
                          select(OUTBOX_MESSAGE.SEQ)
                              .from(OUTBOX_MESSAGE)
                              .where(old)
                              .limit(batchSize)))
                  .execute()
              : dsl.deleteFrom(OUTBOX_MESSAGE).where(old).limit(batchSize).execute();
      outbox += deleted;
    } while (deleted == batchSize);

    long inbox = 0;
    do {
      Condition old = INBOX_MESSAGE.SEEN_AT.lt(cutoff);
      deleted =
          dialect.limitInSubquery
              ? dsl.deleteFrom(INBOX_MESSAGE)
                  .where(
                      row(INBOX_MESSAGE.CONSUMER, INBOX_MESSAGE.MESSAGE_ID)
                          .in(
                              select(INBOX_MESSAGE.CONSUMER, INBOX_MESSAGE.MESSAGE_ID)
                                  .from(INBOX_MESSAGE)
                                  .where(old)
                                  .limit(batchSize)))
                  .execute()
              : dsl.deleteFrom(INBOX_MESSAGE).where(old).limit(batchSize).execute();
      inbox += deleted;
    } while (deleted == batchSize);
    return new PurgeResult(outbox, inbox);
  }

  /** Counts over the whole outbox. Reads every row once: meant for operators, not gauges. */
  public OutboxStats stats(Instant now) {
    long pending = 0;
    long leased = 0;
    long dead = 0;
    long sent = 0;
    Duration oldest = Duration.ZERO;
    for (OutboxStats topic : statsByTopic(now).values()) {
      pending += topic.pending();
      leased += topic.leased();
      dead += topic.dead();
      sent += topic.sentAwaitingPurge();
      oldest = topic.oldestPendingAge().compareTo(oldest) > 0 ? topic.oldestPendingAge() : oldest;
    }
    return new OutboxStats(pending, leased, dead, sent, oldest);
  }

  /** {@link #stats} per topic, sorted by topic. Topics with no rows are absent. */
  public Map<String, OutboxStats> statsByTopic(Instant now) {
    Condition pending = OUTBOX_MESSAGE.SENT_AT.isNull().and(OUTBOX_MESSAGE.DEAD_AT.isNull());
    Field<Integer> pendingCount = count().filterWhere(pending).as("pending");
    Field<Integer> leasedCount =
        count().filterWhere(pending.and(OUTBOX_MESSAGE.LOCKED_UNTIL.gt(now))).as("leased");
    Field<Integer> deadCount = count().filterWhere(OUTBOX_MESSAGE.DEAD_AT.isNotNull()).as("dead");
    Field<Integer> sentCount = count().filterWhere(OUTBOX_MESSAGE.SENT_AT.isNotNull()).as("sent");
    Field<Instant> oldest = min(DSL.when(pending, OUTBOX_MESSAGE.CREATED_AT)).as("oldest");
    Map<String, OutboxStats> result = new LinkedHashMap<>();
    for (Record r :
        dsl.select(OUTBOX_MESSAGE.TOPIC, pendingCount, leasedCount, deadCount, sentCount, oldest)
            .from(OUTBOX_MESSAGE)
            .groupBy(OUTBOX_MESSAGE.TOPIC)
            .orderBy(OUTBOX_MESSAGE.TOPIC)
            .fetch()) {
      result.put(
          r.get(OUTBOX_MESSAGE.TOPIC),
          new OutboxStats(
              r.get(pendingCount),
              r.get(leasedCount),
              r.get(deadCount),
              r.get(sentCount),
              ageAt(now, r.get(oldest))));
    }
    return result;
  }

  private static Duration ageAt(Instant now, Instant created) {
    return created == null || created.isAfter(now) ? Duration.ZERO : Duration.between(created, now);
  }

  /**
   * Cheap gauges for metrics: the pending count (an index-only count over the pending rows) and the
   * age of the oldest pending message (one index probe).
   */
  public long pendingCount() {
    return dsl.fetchCount(
        OUTBOX_MESSAGE, OUTBOX_MESSAGE.SENT_AT.isNull().and(OUTBOX_MESSAGE.DEAD_AT.isNull()));
  }

  /** Age of the oldest pending message at {@code now}; {@link Duration#ZERO} when none. */
  public Duration oldestPendingAge(Instant now) {
    Instant created =
        dsl.select(OUTBOX_MESSAGE.CREATED_AT)
            .from(OUTBOX_MESSAGE)
            .where(OUTBOX_MESSAGE.SENT_AT.isNull())
            .and(OUTBOX_MESSAGE.DEAD_AT.isNull())
            .orderBy(OUTBOX_MESSAGE.SEQ)
            .limit(1)
            .fetchOne(OUTBOX_MESSAGE.CREATED_AT);
    return ageAt(now, created);
  }

  // ---------------------------------------------------------------- mapping

  private OutboxMessage toMessage(Record r) {
    return new OutboxMessage(
        r.get(OUTBOX_MESSAGE.SEQ),
        r.get(OUTBOX_MESSAGE.ID),
        r.get(OUTBOX_MESSAGE.AGGREGATE),
        r.get(OUTBOX_MESSAGE.TOPIC),
        r.get(OUTBOX_MESSAGE.PAYLOAD).data(),
        readHeaders(r.get(OUTBOX_MESSAGE.HEADERS)),
        r.get(OUTBOX_MESSAGE.ATTEMPTS),
        r.get(OUTBOX_MESSAGE.CREATED_AT),
        mapper);
  }

  private JSON headersJson(Map<String, String> headers) {
    if (headers.isEmpty()) {
      return null;
    }
    try {
      return JSON.json(mapper.writeValueAsString(headers));
    } catch (JsonProcessingException e) {
      throw new OutboxException("headers do not serialize", e);
    }
  }

  private Map<String, String> readHeaders(JSON json) {
    if (json == null) {
      return Map.of();
    }
    Map<String, String> headers;
    try {
      headers = mapper.readValue(json.data(), HEADERS);
    } catch (JsonProcessingException e) {
      throw new OutboxException(
          "stored headers are not a JSON object of strings: " + firstLine(e.getOriginalMessage()),
          e);
    }
    if (headers == null) {
      return Map.of(); // JSON null: no headers, as SQL NULL
    }
    if (headers.containsValue(null)) {
      throw new OutboxException("stored headers are not a JSON object of strings: a value is null");
    }
    return headers;
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "unreadable";
    }
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
