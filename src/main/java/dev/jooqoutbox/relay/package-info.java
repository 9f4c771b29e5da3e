/**
 * The public API for delivering messages: {@link dev.jooqoutbox.relay.OutboxRelay} and its builder,
 * and what an application implements for it: the handlers, their outcome exceptions, the reconciler
 * of unknown outcomes and the retry policy.
 */
package dev.jooqoutbox.relay;
