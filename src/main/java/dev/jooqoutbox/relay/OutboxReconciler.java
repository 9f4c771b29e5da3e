package dev.jooqoutbox.relay;

import dev.jooqoutbox.OutboxMessage;

/**
 * Finds out what became of the outcome-unknown messages of one topic (see {@link
 * OutcomeUnknownException}), usually by asking the remote system with the stored remote reference.
 * Registered per topic with {@link OutboxRelayBuilder#reconciler}.
 *
 * <p>The relay asks about each outcome-unknown message of the topic with backoff: first {@code
 * reconcileBackoff}'s initial wait after the outcome became unknown, then each time after as long
 * again as the message has been unknown (doubling), capped at the maximum. While it asks, the relay
 * holds the message for the relay's {@code lease} (not extended), so no other relay asks about it
 * meanwhile unless the reconciler takes longer than that; whatever the answers, the message is
 * resolved at most once. A reconciler that throws is asked again later, with the same backoff; it
 * never stops the relay. Calls run one at a time on a thread of the relay's own.
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
