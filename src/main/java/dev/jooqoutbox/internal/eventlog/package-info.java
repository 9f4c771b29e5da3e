/**
 * PostgreSQL's event log (changeset 009): writers append messages to {@code outbox_event} and never
 * touch them again; relays read them by position, per shard of aggregates they lease, and settle
 * them in memory, keeping only a position per shard in the database; the messages that need a state
 * of their own are copied to {@code outbox_message} ("parked"), where the row-state store of {@code
 * internal.repository} delivers them. Retention empties whole partitions. See
 * docs/decisions/0001-postgresql-event-log.md. Not API.
 */
package dev.jooqoutbox.internal.eventlog;
