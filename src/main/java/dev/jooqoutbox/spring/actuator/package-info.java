/**
 * The outbox's Spring Boot Actuator parts: the {@code outbox} health indicator and endpoint,
 * configured only when the Actuator is on the class path.
 */
package dev.jooqoutbox.spring.actuator;
