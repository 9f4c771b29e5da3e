/** The relay's metrics on a Micrometer registry, loaded only when one is given. Not API. */
package dev.jooqoutbox.internal.micrometer;
