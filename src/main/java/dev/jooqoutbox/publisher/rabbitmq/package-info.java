/**
 * An asynchronous handler that publishes outbox messages to RabbitMQ and settles each on the
 * publisher confirm; needs the optional RabbitMQ client.
 */
package dev.jooqoutbox.publisher.rabbitmq;
