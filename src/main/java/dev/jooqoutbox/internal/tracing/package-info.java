/**
 * Trace propagation through the outbox, with an OpenTelemetry implementation loaded only when
 * OpenTelemetry is present. Not API.
 */
package dev.jooqoutbox.internal.tracing;
