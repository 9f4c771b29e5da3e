package dev.jooqoutbox.internal.naming;

import static dev.jooqoutbox.schema.Tables.INBOX_MESSAGE;
import static dev.jooqoutbox.schema.Tables.OUTBOX_EVENT;
import static dev.jooqoutbox.schema.Tables.OUTBOX_EVENT_KEY;
import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static dev.jooqoutbox.schema.Tables.OUTBOX_PAUSED_TOPIC;
import static dev.jooqoutbox.schema.Tables.OUTBOX_RELAY;
import static dev.jooqoutbox.schema.Tables.OUTBOX_SHARD;

import dev.jooqoutbox.OutboxName;
import dev.jooqoutbox.schema.DefaultSchema;
import org.jooq.Context;
import org.jooq.DSLContext;
import org.jooq.QueryPart;
import org.jooq.Table;
import org.jooq.conf.MappedSchema;
import org.jooq.conf.MappedTable;
import org.jooq.conf.RenderMapping;
import org.jooq.conf.Settings;
import org.jooq.conf.SettingsTools;
import org.jooq.impl.CustomQueryPart;
import org.jooq.impl.DSL;

/**
 * Points the generated classes (tables {@code outbox_message}, {@code inbox_message} and {@code
 * outbox_paused_topic}) at a named outbox's tables through jOOQ's render mapping, so that {@code
 * generated/} stays the one source of the typed classes. Every context the library runs queries on
 * goes through {@link #apply}; the names it renders come from a validated {@link OutboxName}, never
 * from other input.
 *
 * <p>Not API.
 */
public final class OutboxNaming {

  /**
   * The PostgreSQL notification channel of the default outbox; {@code Outbox.NOTIFY_CHANNEL} is
   * this constant.
   */
  public static final String NOTIFY_CHANNEL = "jooq_outbox";

  private OutboxNaming() {}

  /**
   * {@code dsl} unchanged for the default outbox; otherwise a context on the same connections and
   * transaction whose settings map the three tables to {@code name}'s. The caller's settings are
   * copied, never changed. Whether the database has schemas is not asked here: the library's entry
   * points go through {@code internal.repository.OutboxContext}, which asks the dialect.
   */
  public static DSLContext apply(DSLContext dsl, OutboxName name) {
    if (outboxTable(dsl.settings()).equals(name.outboxTable())
        && schema(dsl.settings()).equals(name.schema())) {
      return dsl;
    }
    // A new RenderMapping: the clone of the settings shares the caller's (SettingsTools.clone is
    // shallow there), and adding to it changed the caller's context and every other name's.
    RenderMapping given = dsl.settings() == null ? null : dsl.settings().getRenderMapping();
    RenderMapping mapping = new RenderMapping();
    if (given != null) {
      mapping
          .withDefaultCatalog(given.getDefaultCatalog())
          .withDefaultSchema(given.getDefaultSchema())
          .withCatalogs(given.getCatalogs());
    }
    mapping.getSchemata().add(mapped(name));
    if (given != null) {
      mapping.getSchemata().addAll(given.getSchemata());
    }
    Settings settings = SettingsTools.clone(dsl.settings()).withRenderMapping(mapping);
    return DSL.using(dsl.configuration().derive().set(settings));
  }

  private static MappedSchema mapped(OutboxName name) {
    // An output schema makes jOOQ qualify the tables with it: SCHEMA.TABLE in every query.
    return new MappedSchema()
        .withInput(DefaultSchema.DEFAULT_SCHEMA.getName())
        .withOutput(name.hasSchema() ? name.schema() : null)
        .withTables(
            new MappedTable().withInput(OUTBOX_MESSAGE.getName()).withOutput(name.outboxTable()),
            new MappedTable().withInput(INBOX_MESSAGE.getName()).withOutput(name.inboxTable()),
            new MappedTable()
                .withInput(OUTBOX_PAUSED_TOPIC.getName())
                .withOutput(name.pausedTopicTable()),
            // PostgreSQL's event log (changeset 009, n006): the same prefix.
            mappedLike(name, OUTBOX_EVENT),
            mappedLike(name, OUTBOX_EVENT_KEY),
            mappedLike(name, OUTBOX_SHARD),
            mappedLike(name, OUTBOX_RELAY));
  }

  private static MappedTable mappedLike(OutboxName name, Table<?> table) {
    return new MappedTable().withInput(table.getName()).withOutput(tableName(name, table));
  }

  /**
   * The name of {@code table} (a generated one) in the outbox {@code name}: itself for the default
   * outbox, {@code NAME_table} for a named one, as {@link OutboxName#outboxTable} names hers.
   */
  public static String tableName(OutboxName name, Table<?> table) {
    return name.isDefault() ? table.getName() : name.name() + "_" + table.getName();
  }

  /**
   * The outbox table that {@code settings} render {@code outbox_message} as: what index names in
   * plain SQL and hints derive from ({@code ix_<table>_pending}).
   */
  public static String outboxTable(Settings settings) {
    RenderMapping mapping = settings == null ? null : settings.getRenderMapping();
    if (mapping != null) {
      for (MappedSchema schema : mapping.getSchemata()) {
        if (DefaultSchema.DEFAULT_SCHEMA.getName().equals(schema.getInput())) {
          for (MappedTable table : schema.getTables()) {
            if (OUTBOX_MESSAGE.getName().equals(table.getInput())) {
              return table.getOutput();
            }
          }
        }
      }
    }
    return OUTBOX_MESSAGE.getName();
  }

  /** The schema that {@code settings} render the outbox tables in, or "" for the current one. */
  public static String schema(Settings settings) {
    RenderMapping mapping = settings == null ? null : settings.getRenderMapping();
    if (mapping != null) {
      for (MappedSchema schema : mapping.getSchemata()) {
        if (DefaultSchema.DEFAULT_SCHEMA.getName().equals(schema.getInput())) {
          return schema.getOutput() == null ? "" : schema.getOutput();
        }
      }
    }
    return "";
  }

  /**
   * The PostgreSQL notification channel of the outbox {@code settings} map to: {@link
   * #NOTIFY_CHANNEL} for the default outbox, {@code jooq_outbox_<outbox table>} for a named one, so
   * that a write wakes only the relays of its own outbox. The channel does not name the schema
   * ({@link OutboxName#inSchema}): outboxes with the same tables in two schemas wake each other's
   * relays, which then find nothing of theirs to send (an extra poll, never a lost wake-up). An
   * identifier built from a validated name (at most 12 + 27 + 15 = 54 characters), never from other
   * input.
   */
  public static String notifyChannel(Settings settings) {
    String table = outboxTable(settings);
    return table.equals(OUTBOX_MESSAGE.getName()) ? NOTIFY_CHANNEL : NOTIFY_CHANNEL + "_" + table;
  }

  /**
   * The key under which relays and writers of {@code database} meet in this JVM for the outbox
   * {@code settings} map to: the database alone for the default outbox (as before named outboxes
   * existed), the database and the outbox table for a named one.
   */
  public static String wakeupKey(String database, Settings settings) {
    String table = outboxTable(settings);
    String schema = schema(settings);
    String key = table.equals(OUTBOX_MESSAGE.getName()) ? database : database + "#" + table;
    // An outbox in a schema of its own: not woken by the same tables in the current schema.
    return schema.isEmpty() ? key : key + "@" + schema;
  }

  /**
   * The name of the index {@code ix_<outbox table>_<suffix>} (for example {@code
   * ix_outbox_message_pending}), resolved when the query renders, from the settings of the context
   * that runs it: queries are built before they meet a context, and jOOQ maps table names only, not
   * the index names of hints.
   */
  public static QueryPart outboxIndex(String suffix) {
    return new CustomQueryPart() {
      @Override
      public void accept(Context<?> ctx) {
        ctx.visit(DSL.name("ix_" + outboxTable(ctx.settings()) + "_" + suffix));
      }
    };
  }
}
