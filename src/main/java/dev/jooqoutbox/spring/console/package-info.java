/**
 * The operator console in a Spring Boot application: {@link
 * dev.jooqoutbox.spring.console.OutboxConsoleConfiguration} mounts {@link
 * dev.jooqoutbox.console.OutboxConsoleServlet} on the management server when a property turns it
 * on.
 */
package dev.jooqoutbox.spring.console;
