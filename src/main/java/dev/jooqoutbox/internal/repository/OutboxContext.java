package dev.jooqoutbox.internal.repository;

import dev.jooqoutbox.OutboxName;
import dev.jooqoutbox.internal.naming.OutboxNaming;
import org.jooq.DSLContext;

/**
 * The context the library runs a named outbox's queries on: {@link OutboxNaming#apply}, after the
 * dialect strategy says the database can hold the outbox's schema. Here rather than in {@code
 * internal.naming} because that package sits below this one and never asks which database it is on.
 *
 * <p>Not API.
 */
public final class OutboxContext {

  private OutboxContext() {}

  /**
   * {@code dsl} mapped to the outbox {@code name} (see {@link OutboxNaming#apply}).
   *
   * @throws IllegalArgumentException when {@code name} has a schema and the database has none
   */
  public static DSLContext of(DSLContext dsl, OutboxName name) {
    if (name.hasSchema() && !OutboxDialect.of(dsl.dialect()).hasSchemas()) {
      throw new IllegalArgumentException(
          name + ": SQLite has no schemas; use an outbox without a schema (OutboxName.inSchema)");
    }
    return OutboxNaming.apply(dsl, name);
  }
}
