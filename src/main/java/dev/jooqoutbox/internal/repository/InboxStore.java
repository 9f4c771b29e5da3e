package dev.jooqoutbox.internal.repository;

import static dev.jooqoutbox.schema.Tables.INBOX_MESSAGE;

import java.time.Instant;
import org.jooq.DSLContext;
import org.jooq.impl.SQLDataType;

/** The inbox table: which consumer has handled which message id. */
final class InboxStore {

  private final OutboxDialect dialect;

  InboxStore(OutboxDialect dialect) {
    this.dialect = dialect;
  }

  boolean recordSeen(DSLContext tx, String consumer, String messageId, Instant now) {
    var insert =
        tx.insertInto(INBOX_MESSAGE)
            .set(INBOX_MESSAGE.CONSUMER, consumer)
            .set(INBOX_MESSAGE.MESSAGE_ID, messageId)
            .set(INBOX_MESSAGE.SEEN_AT, now);
    return dialect.insertIfAbsent(insert, row(consumer, messageId));
  }

  private static UniqueRow<Long> row(String consumer, String messageId) {
    return new UniqueRow<>(
        INBOX_MESSAGE,
        TableKeys.INBOX,
        INBOX_MESSAGE.CONSUMER.eq(consumer).and(INBOX_MESSAGE.MESSAGE_ID.eq(messageId)),
        // seen_at as the stored epoch milliseconds, not as the Instant jOOQ maps it to
        INBOX_MESSAGE.SEEN_AT.coerce(SQLDataType.BIGINT));
  }
}
