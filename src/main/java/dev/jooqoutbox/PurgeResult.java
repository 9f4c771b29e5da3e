package dev.jooqoutbox;

/**
 * How many rows a purge deleted, or a dry run ({@link OutboxAdmin#purgeCount}) would delete: sent
 * outbox rows and inbox rows. Dead letters are kept.
 */
public record PurgeResult(long outboxDeleted, long inboxDeleted) {}
