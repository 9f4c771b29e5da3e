package dev.jooqoutbox.spring;

import dev.jooqoutbox.Inbox;
import dev.jooqoutbox.relay.OutboxHandler;
import java.util.function.Supplier;
import org.jooq.DSLContext;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * What an {@code @OutboxListener(inbox = "...")} handler runs in: a transaction of the
 * application's single transaction manager that records the message in the inbox first ({@link
 * InboxHandler}).
 *
 * @param dsl the application's context joining Spring transactions, for inbox records
 * @param transactionManager the application's unique transaction manager, or null; asked only when
 *     a listener names an inbox, so that an application without one can still have other listeners
 */
record ListenerInbox(
    Inbox inbox, DSLContext dsl, Supplier<PlatformTransactionManager> transactionManager) {

  /**
   * {@code handler} behind the inbox {@code listener} names, or {@code handler} itself when it
   * names none.
   *
   * @throws IllegalStateException naming {@code source} when the application has no single
   *     transaction manager
   */
  OutboxHandler around(OutboxHandler handler, OutboxListener listener, String source) {
    if (listener.inbox().isEmpty()) {
      return handler;
    }
    PlatformTransactionManager transactions = transactionManager.get();
    if (transactions == null) {
      throw new IllegalStateException(
          source
              + ": inbox = \""
              + listener.inbox()
              + "\" runs the handler in a Spring transaction, but the application has no single"
              + " PlatformTransactionManager bean");
    }
    return new InboxHandler(
        handler, listener.inbox(), inbox, dsl, new TransactionTemplate(transactions));
  }
}
