package dev.jooqoutbox.internal.repository;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;

import dev.jooqoutbox.schema.tables.records.OutboxMessageRecord;
import dev.jooqoutbox.testing.RowWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/** Writes messages the way an application does and reads their rows back, for claim tests. */
final class ClaimRows {

  private final DSLContext dsl;
  private final RowWriter writer;

  ClaimRows(DSLContext dsl, java.time.Clock clock) {
    this.dsl = dsl;
    this.writer = new RowWriter(dsl, clock);
  }

  /** Writes one message (a row of outbox_message) in its own transaction; returns its seq. */
  long write(String aggregate, String topic) {
    return writer.write(aggregate, topic, Map.of("n", 1));
  }

  /** Writes one message of topic "t" available {@code delay} from now; returns its seq. */
  long writeDelayed(String aggregate, Duration delay) {
    return writer.write(aggregate, "t", Map.of("n", 1), delay);
  }

  long seqOfId(String id) {
    return dsl.select(OUTBOX_MESSAGE.SEQ)
        .from(OUTBOX_MESSAGE)
        .where(OUTBOX_MESSAGE.ID.eq(id))
        .fetchSingle(OUTBOX_MESSAGE.SEQ);
  }

  /**
   * Another relay's claim of {@code seq}, left uncommitted on {@code connection}: it holds the
   * row's lock on PostgreSQL and MariaDB, the write lock on SQLite, until the caller commits.
   */
  static void leaseUncommitted(Connection connection, SQLDialect dialect, long seq, Instant until)
      throws SQLException {
    connection.setAutoCommit(false);
    DSL.using(connection, dialect)
        .update(OUTBOX_MESSAGE)
        .set(OUTBOX_MESSAGE.CLAIM_TOKEN, "in-flight")
        .set(OUTBOX_MESSAGE.LOCKED_UNTIL, until)
        .set(OUTBOX_MESSAGE.ATTEMPTS, OUTBOX_MESSAGE.ATTEMPTS.plus(1))
        .where(OUTBOX_MESSAGE.SEQ.eq(seq))
        .execute();
  }

  OutboxMessageRecord row(long seq) {
    return dsl.selectFrom(OUTBOX_MESSAGE).where(OUTBOX_MESSAGE.SEQ.eq(seq)).fetchSingle();
  }
}
