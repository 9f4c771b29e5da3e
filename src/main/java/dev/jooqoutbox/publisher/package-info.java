/**
 * Ready-made asynchronous handlers that publish outbox messages to a broker and settle each one on
 * the broker's confirmation: {@code rabbitmq}, {@code kafka} and {@code nats}, each behind an
 * optional client dependency (see docs/publishers.md).
 */
package dev.jooqoutbox.publisher;
