package dev.jooqoutbox.internal.eventlog;

import static dev.jooqoutbox.schema.Tables.OUTBOX_EVENT;
import static dev.jooqoutbox.schema.Tables.OUTBOX_EVENT_KEY;
import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;

import dev.jooqoutbox.internal.repository.JooqOutboxRepository;
import dev.jooqoutbox.internal.repository.MessageRows;
import dev.jooqoutbox.internal.repository.NewMessage;
import dev.jooqoutbox.schema.tables.records.OutboxEventKeyRecord;
import dev.jooqoutbox.schema.tables.records.OutboxEventRecord;
import java.util.Optional;
import org.jooq.DSLContext;
import org.jooq.JSON;
import org.jooq.Name;
import org.jooq.impl.DSL;

/**
 * The writer's side of the event log: one statement appends a message on the caller's transaction,
 * its id first into outbox_event_key (whose primary key makes the id unique whatever partition the
 * message lands in, and lets two writers of one id race safely: the second waits for the first and
 * writes nothing), then the message into outbox_event with the seq and transaction id the key drew.
 * An id that outbox_message holds (a row from before the event log, or a copy of a message that
 * needed a state of its own) is taken too.
 */
public final class EventWriter {

  private final JooqOutboxRepository repository;
  private final MessageRows rows;

  public EventWriter(JooqOutboxRepository repository) {
    this.repository = repository;
    this.rows = repository.rows();
  }

  /**
   * Appends {@code message} on {@code tx} unless its id is stored; never fails the transaction on a
   * duplicate.
   *
   * @return true when appended, false when the id is taken
   */
  public boolean insert(DSLContext tx, NewMessage message) {
    short shard = EventShards.of(message.aggregate());
    var key = OUTBOX_EVENT_KEY;
    Name k = DSL.name("k");
    return tx.with(k)
            .as(
                tx.insertInto(key, key.ID, key.SHARD, key.CREATED_AT)
                    .select(
                        DSL.select(
                                DSL.val(message.id()),
                                DSL.val(shard),
                                DSL.val(message.createdAt(), key.CREATED_AT))
                            .whereNotExists(
                                DSL.selectOne()
                                    .from(OUTBOX_MESSAGE)
                                    .where(OUTBOX_MESSAGE.ID.eq(message.id()))))
                    .onConflict(key.ID)
                    .doNothing()
                    .returningResult(key.SEQ, key.TXID))
            .insertInto(
                OUTBOX_EVENT,
                OUTBOX_EVENT.SEQ,
                OUTBOX_EVENT.TXID,
                OUTBOX_EVENT.SHARD,
                OUTBOX_EVENT.ID,
                OUTBOX_EVENT.AGGREGATE,
                OUTBOX_EVENT.TOPIC,
                OUTBOX_EVENT.PAYLOAD,
                OUTBOX_EVENT.HEADERS,
                OUTBOX_EVENT.CREATED_AT,
                OUTBOX_EVENT.AVAILABLE_AT)
            .select(
                DSL.select(
                        // Templates over names: the render mapping of an outbox in a schema would
                        // qualify a field or table built from a name with that schema too, and a
                        // CTE has none (as in HeadQueries). A Name itself renders as given.
                        DSL.field("{0}", Long.class, DSL.name("k", "seq")),
                        DSL.field("{0}", Long.class, DSL.name("k", "txid")),
                        DSL.val(shard),
                        DSL.val(message.id()),
                        DSL.val(message.aggregate()),
                        DSL.val(message.topic()),
                        DSL.val(JSON.json(message.payloadJson()), OUTBOX_EVENT.PAYLOAD),
                        DSL.val(rows.headersJson(message.headers()), OUTBOX_EVENT.HEADERS),
                        DSL.val(message.createdAt(), OUTBOX_EVENT.CREATED_AT),
                        DSL.val(message.availableAt(), OUTBOX_EVENT.AVAILABLE_AT))
                    .from(DSL.table("{0}", k)))
            .execute()
        == 1;
  }

  /** The stored content of message {@code id}, read on {@code tx}, for an idempotency check. */
  public Optional<NewMessage> findStored(DSLContext tx, String id) {
    Optional<NewMessage> row = repository.findStored(tx, id);
    if (row.isPresent()) {
      return row;
    }
    OutboxEventKeyRecord key =
        tx.selectFrom(OUTBOX_EVENT_KEY).where(OUTBOX_EVENT_KEY.ID.eq(id)).fetchOne();
    if (key == null) {
      return Optional.empty();
    }
    // Literal bounds, as the relay's reads: planned for this partition alone (see EventReader).
    OutboxEventRecord e =
        tx.selectFrom(OUTBOX_EVENT)
            .where(OUTBOX_EVENT.SHARD.eq(DSL.inline(key.getShard())))
            .and(OUTBOX_EVENT.TXID.eq(DSL.inline(key.getTxid())))
            .and(OUTBOX_EVENT.SEQ.eq(DSL.inline(key.getSeq())))
            .fetchOne();
    return Optional.ofNullable(e)
        .map(
            r ->
                new NewMessage(
                    r.getId(),
                    r.getAggregate(),
                    r.getTopic(),
                    r.getPayload().data(),
                    rows.readHeaders(r.getHeaders()),
                    r.getCreatedAt(),
                    r.getAvailableAt()));
  }
}
