/**
 * The public API for writing and reading the outbox: {@link dev.jooqoutbox.Outbox} (write in the
 * application's transaction), {@link dev.jooqoutbox.Inbox} (exactly-once effects), {@link
 * dev.jooqoutbox.OutboxAdmin} (operator API), {@link dev.jooqoutbox.OutboxSchema} (migration), the
 * value records they take and return, and the exception hierarchy under {@link
 * dev.jooqoutbox.OutboxException}.
 */
package dev.jooqoutbox;
