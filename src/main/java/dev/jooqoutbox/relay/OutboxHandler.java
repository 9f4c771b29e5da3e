package dev.jooqoutbox.relay;

import dev.jooqoutbox.OutboxMessage;

/**
 * Receives the messages of one topic. Called at least once per message, never concurrently for two
 * messages of one aggregate, and in {@code seq} order per aggregate.
 *
 * <p>Returning normally marks the message sent. Throwing anything (an exception or an error) counts
 * a failed attempt: the message is retried with backoff, or dead-lettered after the last attempt of
 * its topic's {@link RetryPolicy}. Three exceptions say more: {@link OutcomeUnknownException} (the
 * remote call's result is unknown: held, never retried by itself, until reconciled), {@link
 * PermanentFailureException} (dead-lettered at once) and {@link RescheduleException} (delivered
 * again at a chosen time, not counted as a failure). While it runs, the relay extends the lease of
 * its message, so a slow handler is not delivered a second time by another relay; one that runs
 * longer than the relay's {@code maxHandlingTime} is interrupted and counts as failed, and its late
 * result settles nothing. A handler whose effects must happen once records {@link
 * OutboxMessage#id()} with {@link dev.jooqoutbox.Inbox} in its own transaction.
 */
@FunctionalInterface
public interface OutboxHandler {

  void handle(OutboxMessage message) throws Exception;
}
