package dev.jooqoutbox;

import dev.jooqoutbox.internal.repository.JooqOutboxRepository;
import java.sql.Connection;
import java.time.Clock;
import java.util.Objects;
import java.util.function.Consumer;
import org.jooq.DSLContext;

/**
 * Turns at-least-once delivery into exactly-once effects: a consumer records each message id in its
 * own transaction, and a second delivery of the same id finds the record and is dropped.
 *
 * <p>Guarantee: for one {@code consumer}, {@link #seen} returns false for a message id in at most
 * one committed transaction. Concurrent duplicates wait on the row lock (PostgreSQL, MariaDB) or
 * the write lock (SQLite) and then see true. Records older than the relay's retention are purged,
 * so keep the retention longer than any redelivery you expect.
 */
public final class Inbox {

  private final Clock clock;

  public Inbox() {
    this(Clock.systemUTC());
  }

  public Inbox(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /**
   * Records that {@code consumer} handles {@code messageId}, inside the consumer's transaction
   * {@code tx}.
   *
   * @return true when the id was already recorded: this delivery is a copy, drop it
   * @throws NoTransactionException when {@code tx} is in autocommit mode (the record would commit
   *     without the consumer's work)
   */
  public boolean seen(DSLContext tx, String consumer, String messageId) {
    MessageRules.checkText("consumer", consumer, MessageRules.MAX_KEY_LENGTH);
    MessageRules.checkText("messageId", messageId, MessageRules.MAX_KEY_LENGTH);
    if (tx.connectionResult(Connection::getAutoCommit)) {
      throw new NoTransactionException(
          "Inbox.seen must run in the consumer's transaction, but the connection is in autocommit"
              + " mode");
    }
    return !JooqOutboxRepository.recordSeen(tx, consumer, messageId, clock.instant());
  }

  /**
   * Runs {@code work} in a new transaction on {@code dsl} unless {@code consumer} already handled
   * {@code messageId}; the record and the work commit together.
   *
   * @return true when the work ran, false when the message was a copy
   */
  public boolean runOnce(
      DSLContext dsl, String consumer, String messageId, Consumer<DSLContext> work) {
    return dsl.transactionResult(
        tx -> {
          if (seen(tx.dsl(), consumer, messageId)) {
            return false;
          }
          work.accept(tx.dsl());
          return true;
        });
  }
}
