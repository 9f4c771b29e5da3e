package dev.jooqoutbox.spring;

import dev.jooqoutbox.OutboxName;
import dev.jooqoutbox.OutboxSchema;
import dev.jooqoutbox.spring.OutboxProperties.Migrate;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the outbox changelog at startup as {@code jooq-outbox.schema.migrate} says. Created after
 * the application's Liquibase beans, and before every bean of the outbox, so that those find the
 * tables.
 */
final class OutboxSchemaInitializer {

  private static final Logger log = LoggerFactory.getLogger(OutboxSchemaInitializer.class);

  private final boolean migrated;

  OutboxSchemaInitializer(Migrate mode, OutboxName name, DSLContext own, DataSource dataSource) {
    this.migrated = migrate(mode, name, own, dataSource);
  }

  private static boolean migrate(
      Migrate mode, OutboxName name, DSLContext own, DataSource dataSource) {
    String changelog = name.isDefault() ? OutboxSchema.CHANGELOG : OutboxSchema.NAMED_CHANGELOG;
    switch (mode) {
      case NEVER:
        return false;
      case AUTO:
        if (OutboxSchema.isMigrated(own, name)) {
          return false;
        }
        log.info(
            "jooq-outbox: {} missing; running {}",
            name.isDefault() ? "the outbox tables are" : "the tables of " + name + " are",
            changelog);
        break;
      case ALWAYS:
      default:
        break;
    }
    if (dataSource == null) {
      throw new IllegalStateException(
          "jooq-outbox.schema.migrate is "
              + mode
              + " but the application's DSLContext is not built on a DataSource to migrate with;"
              + " include "
              + changelog
              + (name.isDefault()
                  ? ""
                  : " (with the changelog parameter "
                      + OutboxSchema.NAME_PARAMETER
                      + "="
                      + name.name()
                      + ")")
              + " in your Liquibase changelog and set jooq-outbox.schema.migrate=never");
    }
    OutboxSchema.migrate(dataSource, name);
    return true;
  }

  /** Whether this start ran the changelog. */
  boolean migrated() {
    return migrated;
  }
}
