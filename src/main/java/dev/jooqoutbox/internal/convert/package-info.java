/**
 * The converters the generated jOOQ classes ({@code dev.jooqoutbox.schema}) name: below both the
 * generated classes and the repository that uses them, so neither depends on the other's package
 * through it. Not API.
 */
package dev.jooqoutbox.internal.convert;
