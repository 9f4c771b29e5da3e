package dev.jooqoutbox.spring;

import dev.jooqoutbox.Inbox;
import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.relay.OutboxHandler;
import org.jooq.DSLContext;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Runs a handler once per message id for one inbox consumer: in a Spring transaction that records
 * the id first ({@link Inbox#seen}) and drops a copy already recorded. The handler's work on the
 * application's {@code DSLContext} joins that transaction, so the effect and the record commit or
 * roll back together.
 */
final class InboxHandler implements OutboxHandler {

  private final OutboxHandler handler;
  private final String consumer;
  private final Inbox inbox;
  private final DSLContext dsl;
  private final TransactionTemplate transactions;

  InboxHandler(
      OutboxHandler handler,
      String consumer,
      Inbox inbox,
      DSLContext dsl,
      TransactionTemplate transactions) {
    this.handler = handler;
    this.consumer = consumer;
    this.inbox = inbox;
    this.dsl = dsl;
    this.transactions = transactions;
  }

  @Override
  public void handle(OutboxMessage message) throws Exception {
    try {
      transactions.executeWithoutResult(
          status -> {
            if (inbox.seen(dsl, consumer, message.id())) {
              return;
            }
            try {
              handler.handle(message);
            } catch (RuntimeException e) {
              throw e;
            } catch (Exception e) {
              throw new CheckedFailure(e); // rolls back like the unchecked ones
            }
          });
    } catch (CheckedFailure failure) {
      throw failure.checked;
    }
  }

  /** Carries a handler's checked exception through TransactionTemplate's callback. */
  private static final class CheckedFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient Exception checked;

    CheckedFailure(Exception checked) {
      super(checked.getMessage(), checked, false, false);
      this.checked = checked;
    }
  }
}
