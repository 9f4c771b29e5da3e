package dev.jooqoutbox.spring;

import dev.jooqoutbox.internal.wakeup.AfterCommit;
import org.jooq.DSLContext;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The writer's fast wake-up for transactions Spring manages: an outbox write inside a
 * {@code @Transactional} method wakes the relays right after Spring commits, with no statement in
 * the transaction. Once per transaction and action, whatever number of writes asked.
 */
final class SpringAfterCommit implements AfterCommit {

  static final SpringAfterCommit INSTANCE = new SpringAfterCommit();

  private SpringAfterCommit() {}

  @Override
  public boolean runAfterCommit(DSLContext tx, Runnable action) {
    // The outbox bean writes through the application's DSLContext, whose connections follow
    // Spring's transaction: an active, synchronized Spring transaction on this thread is the one
    // the write joined.
    if (!TransactionSynchronizationManager.isSynchronizationActive()
        || !TransactionSynchronizationManager.isActualTransactionActive()) {
      return false;
    }
    Object key = new ActionKey(action);
    if (!TransactionSynchronizationManager.hasResource(key)) {
      TransactionSynchronizationManager.bindResource(key, Boolean.TRUE);
      TransactionSynchronizationManager.registerSynchronization(
          new TransactionSynchronization() {
            @Override
            public void afterCommit() {
              action.run();
            }

            @Override
            public void afterCompletion(int status) {
              TransactionSynchronizationManager.unbindResourceIfPossible(key);
            }
          });
    }
    return true;
  }

  /** A resource key per action, so that the many writes of one transaction register it once. */
  private record ActionKey(Runnable action) {}
}
