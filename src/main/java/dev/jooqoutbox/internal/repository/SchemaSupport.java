package dev.jooqoutbox.internal.repository;

import org.jooq.SQLDialect;

/**
 * Whether a dialect has schemas, for {@link dev.jooqoutbox.internal.naming.OutboxNaming} to refuse
 * an outbox in a schema where there are none; the answer is the dialect strategy's.
 *
 * <p>Not API.
 */
public final class SchemaSupport {

  private SchemaSupport() {}

  /** Whether tables of {@code dialect} can live in a schema other than the current one. */
  public static boolean of(SQLDialect dialect) {
    return OutboxDialect.of(dialect).hasSchemas();
  }
}
