/**
 * The outbox's typed SQL behind {@code JooqOutboxRepository}, and the dialect strategies ({@code
 * OutboxDialect}): the only place that knows which database it runs on. Not API.
 */
package dev.jooqoutbox.internal.repository;
