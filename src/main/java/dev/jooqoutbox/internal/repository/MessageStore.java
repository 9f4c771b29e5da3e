package dev.jooqoutbox.internal.repository;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;

import java.util.Optional;
import org.jooq.DSLContext;
import org.jooq.JSON;

/** The writer's side of the outbox table: insert a message on the caller's transaction. */
record MessageStore(OutboxDialect dialect, MessageRows rows) {

  boolean insert(DSLContext tx, NewMessage message) {
    var insert =
        tx.insertInto(OUTBOX_MESSAGE)
            .set(OUTBOX_MESSAGE.ID, message.id())
            .set(OUTBOX_MESSAGE.AGGREGATE, message.aggregate())
            .set(OUTBOX_MESSAGE.TOPIC, message.topic())
            .set(OUTBOX_MESSAGE.PAYLOAD, JSON.json(message.payloadJson()))
            .set(OUTBOX_MESSAGE.HEADERS, rows.headersJson(message.headers()))
            .set(OUTBOX_MESSAGE.CREATED_AT, message.createdAt())
            .set(OUTBOX_MESSAGE.AVAILABLE_AT, message.availableAt())
            .set(OUTBOX_MESSAGE.ATTEMPTS, 0);
    return dialect.insertIfAbsent(
        insert,
        new UniqueRow<>(
            OUTBOX_MESSAGE,
            TableKeys.OUTBOX_ID,
            OUTBOX_MESSAGE.ID.eq(message.id()),
            OUTBOX_MESSAGE.ATTEMPTS));
  }

  Optional<NewMessage> findStored(DSLContext tx, String id) {
    return dialect
        .readCommitted(tx.selectFrom(OUTBOX_MESSAGE).where(OUTBOX_MESSAGE.ID.eq(id)))
        .fetchOptional()
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
