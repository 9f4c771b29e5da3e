/**
 * A named outbox's names: table mapping over the generated classes, index names and the PostgreSQL
 * notification channels. Not API.
 */
package dev.jooqoutbox.internal.naming;
