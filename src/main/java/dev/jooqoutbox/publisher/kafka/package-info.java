/**
 * An asynchronous handler that publishes outbox messages to Kafka and settles each on the
 * producer's acknowledgement; needs the optional Kafka client.
 */
package dev.jooqoutbox.publisher.kafka;
