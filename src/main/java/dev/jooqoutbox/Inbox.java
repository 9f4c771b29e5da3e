package dev.jooqoutbox;

import dev.jooqoutbox.internal.repository.JooqOutboxRepository;
import dev.jooqoutbox.internal.repository.OutboxContext;
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
 * one committed transaction. Concurrent copies wait on the row lock (PostgreSQL, MariaDB) or the
 * write lock (SQLite) until the delivery that recorded the id first ends: when it commits they see
 * true; when it rolls back, one of them records the id and the others wait for that one. On
 * MariaDB, copies that wait behind a delivery that rolls back may be chosen as deadlock victims;
 * {@link #runOnce} runs its transaction again then, {@link #seen} cannot (see there). Records older
 * than the relay's retention are purged, so keep the retention longer than any redelivery you
 * expect.
 */
public final class Inbox {

  private final Clock clock;
  private final OutboxName name;

  /** An inbox on the default outbox's inbox table, recording on the UTC system clock. */
  public Inbox() {
    this(Clock.systemUTC());
  }

  /**
   * An inbox on the default outbox's inbox table that reads "now" (the time a record is made, which
   * the purge's retention is measured from) from {@code clock}.
   */
  public Inbox(Clock clock) {
    this(clock, OutboxName.DEFAULT);
  }

  /**
   * An inbox on the inbox table of the outbox {@code name}, recording on the UTC system clock: as
   * {@link #Inbox(Clock, OutboxName)} with {@link Clock#systemUTC()}.
   */
  public Inbox(OutboxName name) {
    this(Clock.systemUTC(), name);
  }

  /**
   * An inbox on the inbox table of the outbox {@code name} (see {@link OutboxName}): its records
   * are apart from those of every other outbox, and purged by that outbox's relay.
   */
  public Inbox(Clock clock, OutboxName name) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.name = Objects.requireNonNull(name, "name");
  }

  /**
   * Records that {@code consumer} handles {@code messageId}, inside the consumer's transaction
   * {@code tx}.
   *
   * <p>On MariaDB, when the delivery that recorded the id first rolls back while several copies
   * wait for it, the database may pick some of the waiting copies as deadlock victims. It then
   * rolls back the victim's whole transaction, the consumer's earlier statements included, and this
   * method throws jOOQ's {@code DataAccessException} with SQLSTATE class 40 ({@code
   * sqlStateClass()} is {@code C40_TRANSACTION_ROLLBACK}). It cannot run the insert again: nothing
   * of the transaction is left to go on with. Run the whole transaction again (the inbox makes that
   * safe), or use {@link #runOnce}, which does so itself.
   *
   * @return true when the id was already recorded: this delivery is a copy, drop it
   * @throws NoTransactionException when {@code tx} is in autocommit mode (the record would commit
   *     without the consumer's work)
   */
  public boolean seen(DSLContext tx, String consumer, String messageId) {
    checkKeys(consumer, messageId);
    if (tx.connectionResult(Connection::getAutoCommit)) {
      throw new NoTransactionException(
          "Inbox.seen must run in the consumer's transaction, but the connection is in autocommit"
              + " mode");
    }
    return !JooqOutboxRepository.recordSeen(
        OutboxContext.of(tx, name), consumer, messageId, clock.instant());
  }

  /**
   * Runs {@code work} in a new transaction on {@code dsl} unless {@code consumer} already handled
   * {@code messageId}; the record and the work commit together.
   *
   * <p>A copy that waits behind a first delivery returns once that delivery ends: false when it
   * committed; when it rolled back, exactly one waiting copy runs the work and the others return
   * false once that one commits. When the database picks this call's record as a deadlock victim
   * (MariaDB, behind a delivery that rolled back), the transaction is run again: the work had not
   * started, and the database had rolled back everything. An error of the work itself, a deadlock
   * included, is thrown as it is, never retried.
   *
   * <p>{@code dsl} should open a transaction of its own: a context over a {@code DataSource} or a
   * connection in autocommit mode. On a context inside a transaction already, jOOQ runs the work in
   * a savepoint of it, and a deadlock victim is thrown as {@link #seen} throws it, since the
   * database rolled back the enclosing transaction too.
   *
   * @return true when the work ran, false when the message was a copy
   */
  public boolean runOnce(
      DSLContext dsl, String consumer, String messageId, Consumer<DSLContext> work) {
    checkKeys(consumer, messageId);
    Objects.requireNonNull(work, "work");
    return JooqOutboxRepository.runOnce(
        OutboxContext.of(dsl, name), consumer, messageId, clock::instant, work);
  }

  private static void checkKeys(String consumer, String messageId) {
    MessageRules.checkText("consumer", consumer, MessageRules.MAX_KEY_LENGTH);
    MessageRules.checkText("messageId", messageId, MessageRules.MAX_KEY_LENGTH);
  }
}
