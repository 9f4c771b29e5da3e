/**
 * {@code outbox demo}: an orders service and a ledger consumer on a real database, optionally
 * publishing through a broker, checked against the database at the end. Part of the tool, not a
 * library API.
 */
package dev.jooqoutbox.cli.demo;
