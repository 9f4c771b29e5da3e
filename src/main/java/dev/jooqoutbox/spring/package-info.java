/**
 * Spring Boot integration: auto-configuration of the outbox, the relays of {@code @OutboxListener}
 * methods and the schema migration, with their properties and customizer (see docs/spring-boot.md).
 */
package dev.jooqoutbox.spring;
