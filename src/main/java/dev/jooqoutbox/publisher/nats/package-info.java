/**
 * An asynchronous handler that publishes outbox messages to NATS JetStream and settles each on the
 * stream's acknowledgement; needs the optional NATS client.
 */
package dev.jooqoutbox.publisher.nats;
