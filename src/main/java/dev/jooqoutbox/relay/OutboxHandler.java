package dev.jooqoutbox.relay;

import dev.jooqoutbox.OutboxMessage;

/**
 * Receives the messages of one topic. Called at least once per message, never concurrently for two
 * messages of one aggregate, and in {@code seq} order per aggregate.
 *
 * <p>Returning normally marks the message sent. Throwing anything (an exception or an error) counts
 * a failed attempt: the message is retried with backoff, or dead-lettered after the last attempt. A
 * handler that runs longer than the relay's lease is treated as failed, and its late result cannot
 * settle the message. A handler whose effects must happen once records {@link OutboxMessage#id()}
 * with {@link dev.jooqoutbox.Inbox} in its own transaction.
 */
@FunctionalInterface
public interface OutboxHandler {

  void handle(OutboxMessage message) throws Exception;
}
