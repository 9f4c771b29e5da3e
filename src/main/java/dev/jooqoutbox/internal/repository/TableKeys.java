package dev.jooqoutbox.internal.repository;

import static dev.jooqoutbox.schema.Tables.INBOX_MESSAGE;
import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;

import org.jooq.Field;

/** The keys that identify a row, for conflict targets. */
final class TableKeys {

  /** The outbox's unique message id: the writer's idempotency key. */
  static final Field<?>[] OUTBOX_ID = {OUTBOX_MESSAGE.ID};

  /** The inbox's primary key. */
  static final Field<?>[] INBOX = {INBOX_MESSAGE.CONSUMER, INBOX_MESSAGE.MESSAGE_ID};

  private TableKeys() {}
}
