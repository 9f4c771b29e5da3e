/**
 * What the CLI and its demo share below their commands: JDBC URLs and connection failures. Not API.
 */
package dev.jooqoutbox.internal.cli;
