/**
 * The operator command line ({@code outbox}: migrate, status, dead letters, requeue, unknown
 * outcomes, resolve, purge, demo) on picocli: a tool over the public API, not a library API.
 */
package dev.jooqoutbox.cli;
