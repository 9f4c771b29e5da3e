/**
 * Waking relays when a writer commits: in this JVM, through the transaction's after-commit hook,
 * and the writer's side of it. Not API.
 */
package dev.jooqoutbox.internal.wakeup;
