package dev.jooqoutbox.relay;

import dev.jooqoutbox.OutboxMessage;

/**
 * Finds out what became of the outcome-unknown messages of one topic (see {@link
 * OutcomeUnknownException}), usually by asking the remote system with the stored remote reference.
 * Registered per topic with {@link OutboxRelay.Builder#reconciler}.
 *
 * <p>The relay asks about each outcome-unknown message of the topic with backoff: first {@code
 * reconcileBackoff}'s initial wait after the outcome became unknown, then each time after as long
 * again as the message has been unknown (doubling), capped at the maximum. At most one relay asks
 * about one message at a time (it holds a lease meanwhile). A reconciler that throws is asked again
 * later, with the same backoff; it never stops the relay.
 */
@FunctionalInterface
public interface OutboxReconciler {

  /**
   * @param message the message, as its handler received it (the attempt count is the claims so far)
   * @param remoteRef the remote reference stored with the unknown outcome, or null when none
   * @return what became of it; {@link Reconciliation#stillUnknown()} to be asked again later
   */
  Reconciliation reconcile(OutboxMessage message, String remoteRef) throws Exception;
}
