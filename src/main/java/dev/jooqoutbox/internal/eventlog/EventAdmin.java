package dev.jooqoutbox.internal.eventlog;

import static dev.jooqoutbox.schema.Tables.OUTBOX_EVENT;
import static dev.jooqoutbox.schema.Tables.OUTBOX_EVENT_KEY;
import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.jooq.impl.DSL.count;
import static org.jooq.impl.DSL.min;

import dev.jooqoutbox.MessageState;
import dev.jooqoutbox.MessageStatus;
import dev.jooqoutbox.OutboxStats;
import dev.jooqoutbox.PurgeResult;
import dev.jooqoutbox.Resolution;
import dev.jooqoutbox.ResolutionConflictException;
import dev.jooqoutbox.internal.repository.JooqOutboxRepository;
import dev.jooqoutbox.internal.repository.OutcomeStore;
import dev.jooqoutbox.internal.repository.PurgeRun;
import dev.jooqoutbox.schema.tables.records.OutboxEventKeyRecord;
import dev.jooqoutbox.schema.tables.records.OutboxEventRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.impl.DSL;

/**
 * The operator's view of an outbox on the event log: what the row-state repository says of
 * outbox_message, and of the log the messages that have no copy there, pending until every shard
 * settled them, sent after. A message of the log carries no time of its sending and one attempt.
 */
public final class EventAdmin {

  private final DSLContext dsl;
  private final JooqOutboxRepository repository;
  private final ShardLeases shards;

  public EventAdmin(DSLContext dsl, JooqOutboxRepository repository) {
    this.dsl = dsl;
    this.repository = repository;
    this.shards = new ShardLeases(dsl, "", Instant.EPOCH);
  }

  /** Per topic, sorted: outbox_message's rows and the log's messages without a copy there. */
  public Map<String, OutboxStats> statsByTopic(Instant now) {
    Map<String, OutboxStats> byTopic = new TreeMap<>(repository.statsByTopic(now));
    Condition unsettled = EventBacklog.unsettled(shards.all());
    Field<Integer> pending = count().filterWhere(unsettled).as("pending");
    Field<Integer> sent = count().filterWhere(DSL.not(unsettled)).as("sent");
    Field<Instant> oldest = min(DSL.when(unsettled, OUTBOX_EVENT.CREATED_AT)).as("oldest");
    for (Record r :
        dsl.select(OUTBOX_EVENT.TOPIC, pending, sent, oldest)
            .from(OUTBOX_EVENT)
            .whereNotExists(
                DSL.selectOne().from(OUTBOX_MESSAGE).where(OUTBOX_MESSAGE.ID.eq(OUTBOX_EVENT.ID)))
            .groupBy(OUTBOX_EVENT.TOPIC)
            .fetch()) {
      Instant created = r.get(oldest);
      OutboxStats log =
          new OutboxStats(
              r.get(pending),
              0,
              0,
              r.get(sent),
              created == null || created.isAfter(now)
                  ? Duration.ZERO
                  : Duration.between(created, now),
              0);
      byTopic.merge(
          r.get(OUTBOX_EVENT.TOPIC), log, (a, b) -> OutboxStats.sum(java.util.List.of(a, b)));
    }
    return byTopic;
  }

  /**
   * The purge: outbox_message's sent rows and the inbox's old rows, then the log's partitions that
   * every shard has read past and whose messages are all older than {@code cutoff}.
   */
  public PurgeResult purge(Instant cutoff, int batchSize) {
    PurgeRun run =
        new LogPurgeRun(
            repository.startPurge(cutoff, batchSize),
            new EventRetention(
                dsl, new EventPartitions(dsl, EventPartitions.WIDTH), cutoff, batchSize));
    while (run.next()) {
      // a batch or a partition a call
    }
    return run.deleted();
  }

  /** What {@link #purge} with {@code cutoff} would delete now, counted. */
  public PurgeResult purgeCount(Instant cutoff) {
    PurgeResult rows = repository.purgeCount(cutoff);
    EventPartitions partitions = new EventPartitions(dsl, EventPartitions.WIDTH);
    long log = 0;
    for (EventPartitions.Range r : new EventRetention(dsl, partitions, cutoff, 1).emptiable()) {
      log += dsl.fetchCount(partitions.table(r));
    }
    return new PurgeResult(rows.outboxDeleted() + log, rows.inboxDeleted());
  }

  /** Messages pending: outbox_message's and the log's backlog. */
  public long pendingCount() {
    return repository.pendingCount() + new EventBacklog(shards).pendingCount();
  }

  /** The age of the oldest pending message of either. */
  public Duration oldestPendingAge(Instant now) {
    Duration rows = repository.oldestPendingAge(now);
    Duration log = new EventBacklog(shards).oldestPendingAge(now);
    return rows.compareTo(log) > 0 ? rows : log;
  }

  /**
   * Refuses to resolve message {@code id} of the log as {@code resolution}: it has no row in
   * outbox_message, so its outcome is not unknown (it is pending or sent). Nothing when the log has
   * no such message either.
   *
   * @throws ResolutionConflictException when the log has it
   */
  public void refuseResolution(String id, Resolution resolution, Instant now) {
    Optional<MessageState> state = message(id, now);
    if (state.isPresent()) {
      throw OutcomeStore.conflict(
          id, resolution, state.get().status() == MessageStatus.SENT ? "sent" : "pending", null);
    }
  }

  /** Message {@code id}: its row in outbox_message if it has one, else as the log has it. */
  public Optional<MessageState> message(String id, Instant now) {
    Optional<MessageState> row = repository.message(id, now);
    if (row.isPresent()) {
      return row;
    }
    OutboxEventKeyRecord key =
        dsl.selectFrom(OUTBOX_EVENT_KEY).where(OUTBOX_EVENT_KEY.ID.eq(id)).fetchOne();
    if (key == null) {
      return Optional.empty();
    }
    OutboxEventRecord e =
        dsl.selectFrom(OUTBOX_EVENT)
            .where(OUTBOX_EVENT.SHARD.eq(DSL.inline(key.getShard())))
            .and(OUTBOX_EVENT.TXID.eq(DSL.inline(key.getTxid())))
            .and(OUTBOX_EVENT.SEQ.eq(DSL.inline(key.getSeq())))
            .fetchOne();
    if (e == null) {
      return Optional.empty();
    }
    boolean pending =
        dsl.fetchExists(
            dsl.selectOne()
                .from(OUTBOX_EVENT)
                .where(EventBacklog.unsettled(shards.all()))
                .and(OUTBOX_EVENT.SHARD.eq(DSL.inline(e.getShard())))
                .and(OUTBOX_EVENT.TXID.eq(DSL.inline(e.getTxid())))
                .and(OUTBOX_EVENT.SEQ.eq(DSL.inline(e.getSeq()))));
    return Optional.of(
        new MessageState(
            e.getSeq(),
            e.getId(),
            e.getAggregate(),
            e.getTopic(),
            pending ? MessageStatus.PENDING : MessageStatus.SENT,
            pending ? 0 : 1,
            null,
            e.getCreatedAt(),
            e.getAvailableAt(),
            null,
            null,
            null,
            e.getPayload().data(),
            null,
            null,
            repository.rows().readHeaders(e.getHeaders())));
  }
}
