/**
 * What {@code OutboxSchema} runs on: the Liquibase runner and the checks that the outbox's schema
 * exists. Not API.
 */
package dev.jooqoutbox.internal.schema;
