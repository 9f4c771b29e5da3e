/**
 * What the CLI, its demo and the console share below their commands: JDBC URLs, connection
 * failures, the counts as JSON. Not API.
 */
package dev.jooqoutbox.internal.cli;
