package dev.jooqoutbox.cli.demo;

import static dev.jooqoutbox.cli.demo.DemoTables.LEDGER;
import static dev.jooqoutbox.cli.demo.DemoTables.LEDGER_AMOUNT;
import static dev.jooqoutbox.cli.demo.DemoTables.LEDGER_BOOKED_AT;
import static dev.jooqoutbox.cli.demo.DemoTables.LEDGER_CUSTOMER;
import static dev.jooqoutbox.cli.demo.DemoTables.LEDGER_CUSTOMER_SEQ;
import static dev.jooqoutbox.cli.demo.DemoTables.LEDGER_MESSAGE_ID;
import static dev.jooqoutbox.cli.demo.DemoTables.LEDGER_ORDER_ID;

import dev.jooqoutbox.Inbox;
import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.relay.OutboxHandler;
import java.util.concurrent.ThreadLocalRandom;
import org.jooq.DSLContext;

/**
 * The demo's "ledger" consumer: books each placed order in its own transaction, guarded by the
 * inbox so that a second delivery of a message books nothing.
 *
 * <p>Two kinds of trouble can be injected. A <em>failure</em> ({@code --fail-rate}) throws before
 * booking: the relay retries after a backoff. A <em>lost acknowledgement</em> ({@code
 * --duplicate-rate}) throws after the booking committed, as if the relay had crashed before marking
 * the message sent: the message comes again and the inbox drops the copy.
 */
final class LedgerConsumer implements OutboxHandler {

  static final String CONSUMER = "ledger";

  private final DSLContext dsl;
  private final Inbox inbox;
  private final DemoCounters counters;
  private final double failRate;
  private final double duplicateRate;
  private final int maxAttempts;

  LedgerConsumer(
      DSLContext dsl,
      Inbox inbox,
      DemoCounters counters,
      double failRate,
      double duplicateRate,
      int maxAttempts) {
    this.dsl = dsl;
    this.inbox = inbox;
    this.counters = counters;
    this.failRate = failRate;
    this.duplicateRate = duplicateRate;
    this.maxAttempts = maxAttempts;
  }

  @Override
  public void handle(OutboxMessage message) {
    try {
      book(message);
    } catch (RuntimeException e) {
      // The relay retries a failed attempt, or dead-letters it when it was the last one.
      if (message.attempt() >= maxAttempts) {
        counters.countDead();
      } else {
        counters.countRetry();
      }
      throw e;
    }
  }

  private void book(OutboxMessage message) {
    long startedNanos = System.nanoTime();
    OrderPlaced order = message.payloadAs(OrderPlaced.class);
    if (roll(failRate)) {
      throw new InjectedFailure(
          "injected failure (--fail-rate) before booking order " + order.orderId());
    }
    book(message.id(), order, startedNanos);
    if (roll(duplicateRate)) {
      throw new InjectedFailure(
          "injected lost acknowledgement (--duplicate-rate) after booking order "
              + order.orderId());
    }
  }

  /**
   * Books {@code order}, delivered by the demo's consumer of a broker ({@code --publish}), unless
   * the inbox already has {@code messageId}: a copy the broker delivered again books nothing.
   */
  void bookFromBroker(String messageId, OrderPlaced order) {
    book(messageId, order, System.nanoTime());
  }

  private void book(String messageId, OrderPlaced order, long startedNanos) {
    boolean booked =
        inbox.runOnce(
            dsl,
            CONSUMER,
            messageId,
            tx ->
                tx.insertInto(LEDGER)
                    .set(LEDGER_ORDER_ID, order.orderId())
                    .set(LEDGER_CUSTOMER, order.customer())
                    .set(LEDGER_CUSTOMER_SEQ, order.customerSeq())
                    .set(LEDGER_AMOUNT, order.amountCents())
                    .set(LEDGER_MESSAGE_ID, messageId)
                    .set(LEDGER_BOOKED_AT, System.currentTimeMillis())
                    .execute());
    if (booked) {
      counters.countBooked(order.orderId(), startedNanos);
    } else {
      counters.countDuplicate();
    }
  }

  private static boolean roll(double rate) {
    return rate > 0 && ThreadLocalRandom.current().nextDouble() < rate;
  }

  /** What the injected trouble throws; the relay stores its message as the last error. */
  static final class InjectedFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    InjectedFailure(String message) {
      super(message, null, false, false);
    }
  }
}
