package dev.jooqoutbox.internal.repository;

import static dev.jooqoutbox.schema.Tables.INBOX_MESSAGE;

import java.time.Instant;
import org.jooq.DSLContext;

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
    // The primary key is the only constraint a validated row can break.
    return dialect.insertIfAbsent(insert, TableKeys.INBOX, () -> true);
  }
}
