package dev.jooqoutbox.relay;

import dev.jooqoutbox.OutboxMessage;
import java.util.concurrent.CompletionStage;

/**
 * Receives the messages of one topic without blocking a relay thread while the work completes
 * elsewhere: the publisher to a broker, for example, returns the stage of the broker's
 * confirmation, so that one relay keeps many messages in flight across aggregates.
 *
 * <p>The relay calls {@link #handle} at least once per message, in {@code seq} order per aggregate,
 * and never for the next message of an aggregate before the stage of the previous one completed.
 * Messages of different aggregates are in flight at the same time, up to the relay's {@code
 * maxInFlight}.
 *
 * <p>A stage that completes normally marks the message sent; one that completes exceptionally (or
 * an exception thrown by {@code handle} itself) counts a failed attempt, retried with backoff,
 * unless the exception (unwrapped from a {@code CompletionException}) is one of the outcomes {@link
 * OutcomeUnknownException}, {@link PermanentFailureException} or {@link RescheduleException}, which
 * mean what they mean for {@link OutboxHandler}. A stage that has not completed within the relay's
 * {@code maxHandlingTime} counts as failed, and its late completion settles nothing. {@code handle}
 * must return quickly: it runs on one of the relay's handler threads.
 */
@FunctionalInterface
public interface AsyncOutboxHandler {

  CompletionStage<?> handle(OutboxMessage message);
}
