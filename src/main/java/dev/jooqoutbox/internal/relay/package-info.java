/**
 * The relay's engine behind {@code OutboxRelay}: its threads, the claim-handle-settle cycle,
 * failures and backoff, reconciliation, and the metrics interface. Not API.
 */
package dev.jooqoutbox.internal.relay;
