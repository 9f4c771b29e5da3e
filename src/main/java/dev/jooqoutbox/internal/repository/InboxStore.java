package dev.jooqoutbox.internal.repository;

import static dev.jooqoutbox.schema.Tables.INBOX_MESSAGE;

import java.sql.Connection;
import java.time.Instant;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jooq.DSLContext;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.SQLDataType;

/** The inbox table: which consumer has handled which message id. */
final class InboxStore {

  /**
   * How often {@link #runOnce} runs its transaction when its insert is a deadlock victim. Each
   * victim means a concurrent copy took the row instead, so a copy is a victim again only when that
   * copy rolls back too: attempts are used up only by that many failing copies in a row.
   */
  private static final int VICTIM_ATTEMPTS = 10;

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

  /**
   * Records the message and runs {@code work} in one new transaction on {@code dsl}, unless the
   * message is recorded already; runs that transaction again when the database picked the record's
   * insert as a deadlock victim (MariaDB does when several copies wait behind a first delivery that
   * rolls back). Only a victim of the insert is retried: the work has not run then, and the
   * victim's transaction was rolled back whole. When {@code dsl} is inside a transaction already
   * (its connection is not in autocommit), a victim rolled back that caller's transaction too, so
   * it is thrown instead.
   *
   * @return true when the work ran, false when the message was recorded already
   */
  boolean runOnce(
      DSLContext dsl,
      String consumer,
      String messageId,
      Supplier<Instant> now,
      Consumer<DSLContext> work) {
    for (int attempt = 1; ; attempt++) {
      try {
        return dsl.transactionResult(
            tx -> {
              if (!recordSeenOrSignalVictim(tx.dsl(), consumer, messageId, now.get())) {
                return false;
              }
              work.accept(tx.dsl());
              return true;
            });
      } catch (InsertVictim signal) {
        // Asked only now, so the common path costs no extra connection: jOOQ has ended its
        // transaction and restored autocommit. Still off means dsl was inside a transaction.
        if (!dsl.connectionResult(Connection::getAutoCommit)) {
          throw signal.victim;
        }
        Deadlocks.pauseBeforeRetry(signal.victim, attempt, VICTIM_ATTEMPTS);
      }
    }
  }

  private boolean recordSeenOrSignalVictim(
      DSLContext tx, String consumer, String messageId, Instant now) {
    try {
      return recordSeen(tx, consumer, messageId, now);
    } catch (DataAccessException e) {
      if (Deadlocks.isVictim(e)) {
        throw new InsertVictim(e);
      }
      throw e;
    }
  }

  /**
   * Carries a deadlock victim of the insert out of the transaction, apart from the work's errors.
   */
  private static final class InsertVictim extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient DataAccessException victim;

    InsertVictim(DataAccessException victim) {
      super(victim);
      this.victim = victim;
    }
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
