package dev.jooqoutbox.schema;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jooqoutbox.OutboxName;
import dev.jooqoutbox.OutboxSchema;
import dev.jooqoutbox.internal.naming.OutboxNaming;
import dev.jooqoutbox.testing.EmptyDatabasePerTest;
import dev.jooqoutbox.testing.TestDatabase;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.jooq.DSLContext;
import org.jooq.DataType;
import org.jooq.Field;
import org.jooq.Key;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Keeps each dialect's changesets in step with the generated classes (built from the SQLite
 * changesets): the live schema, read through jOOQ's meta API, must have every generated table,
 * column, nullability, primary key and unique key with a compatible type.
 */
abstract class SchemaConformanceContract extends EmptyDatabasePerTest {

  /** The tables of PostgreSQL's event log (changeset 009). */
  private static final Set<String> EVENT_LOG =
      Set.of("outbox_event", "outbox_event_key", "outbox_shard", "outbox_relay");

  SchemaConformanceContract(TestDatabase.Kind kind) {
    super(kind);
  }

  @Test
  void migratedSchemaMatchesTheGeneratedClasses() {
    db.migrate();
    assertConforms();
  }

  @Test
  void secondMigrationIsANoOp() {
    db.migrate();
    int applied = appliedChangesets();
    // 004 (exact key collation) exists for MariaDB and MySQL only, 006 (the index by state) and
    // 009 (the event log) for PostgreSQL only; 005, 007 and 008 for every dialect.
    assertThat(applied)
        .isEqualTo(
            switch (kind) {
              case SQLITE -> 6;
              case MARIADB -> 7;
              case POSTGRES -> 8;
            });

    db.migrate();

    assertThat(appliedChangesets()).isEqualTo(applied);
    assertConforms();
  }

  @Test
  void rollbackToEmptyAndMigrateAgain() {
    db.migrate();
    OutboxSchema.rollback(db.dataSource(), appliedChangesets());

    assertThat(liveTable("outbox_message")).isNull();
    assertThat(liveTable("inbox_message")).isNull();
    assertThat(liveTable("outbox_paused_topic")).isNull();
    for (String table : EVENT_LOG) {
      assertThat(liveTable(table)).as(table).isNull();
    }
    assertThat(appliedChangesets()).isZero();

    db.migrate();
    assertConforms();
  }

  /**
   * A named outbox's changelog gives its tables what the default changelog gives the default ones:
   * the generated classes' columns, types, nullability and keys, the same indexes (renamed) and, on
   * PostgreSQL and MariaDB, the same column types and collations.
   */
  @Test
  void namedOutboxHasTheDefaultSchemaUnderItsNames() {
    OutboxName billing = OutboxName.of("billing");
    OutboxSchema.migrate(db.dataSource(), billing);
    db.migrate();

    assertConforms(billing);
    for (String table : tablesOfThisKind()) {
      String named = "billing_" + table;
      // These have their primary key and no other index.
      if (!Set.of("outbox_paused_topic", "outbox_event_key", "outbox_shard", "outbox_relay")
          .contains(table)) {
        assertThat(indexes(table)).as("indexes of %s", table).isNotEmpty();
      }
      assertThat(indexes(named))
          .as("indexes of %s", named)
          .isEqualTo(
              indexes(table).stream()
                  .map(i -> i.replace(table, named))
                  .collect(Collectors.toSet()));
      if (kind != TestDatabase.Kind.SQLITE) {
        assertThat(columnTypes(named))
            .as("column types of %s", named)
            .isEqualTo(namedDefaults(columnTypes(table), "billing_"));
      }
    }
  }

  /**
   * A named outbox migrated into another schema (OutboxName.inSchema) through a connection whose
   * current schema is not that one: its tables there conform as in the connection's own schema.
   * PostgreSQL and MariaDB; SQLite has no schemas (SqliteSchemaOutboxTest).
   */
  @Test
  void outboxInASchemaHasTheDefaultSchemaUnderItsNames() {
    Assumptions.assumeTrue(kind != TestDatabase.Kind.SQLITE, "SQLite has no schemas");
    TestDatabase home = db;
    TestDatabase other = TestDatabase.empty(kind, 1);
    try {
      OutboxName billing = OutboxName.of("billing");
      OutboxSchema.migrate(home.dataSource(), billing.inSchema(other.name()));
      home.migrate();
      Map<String, Set<String>> homeIndexes = new HashMap<>();
      Map<String, List<String>> homeTypes = new HashMap<>();
      for (String table : tablesOfThisKind()) {
        homeIndexes.put(table, indexes(table));
        homeTypes.put(table, columnTypes(table));
      }
      db = other; // the checks below read the current schema of db's connections
      assertConforms(billing);
      for (String table : tablesOfThisKind()) {
        String named = "billing_" + table;
        assertThat(indexes(named))
            .as("indexes of %s", named)
            .isEqualTo(
                homeIndexes.get(table).stream()
                    .map(i -> i.replace(table, named))
                    .collect(Collectors.toSet()));
        assertThat(columnTypes(named))
            .as("column types of %s", named)
            .isEqualTo(namedDefaults(homeTypes.get(table), "billing_"));
      }
    } finally {
      db = home;
      other.close();
    }
  }

  @Test
  void changelogShipsOnTheClasspath() {
    assertThat(getClass().getClassLoader().getResource(OutboxSchema.CHANGELOG)).isNotNull();
  }

  /** The tables this kind of database has, by their default outbox's names. */
  private List<String> tablesOfThisKind() {
    List<String> tables =
        new java.util.ArrayList<>(
            List.of("outbox_message", "inbox_message", "outbox_paused_topic"));
    if (kind == TestDatabase.Kind.POSTGRES) {
      tables.addAll(List.of("outbox_event", "outbox_event_key", "outbox_shard", "outbox_relay"));
    }
    return tables;
  }

  private void assertConforms() {
    assertConforms(OutboxName.DEFAULT);
  }

  private void assertConforms(OutboxName name) {
    assertThat(OutboxSchema.isMigrated(db.dsl(), name)).isTrue();
    for (Table<?> generated : DefaultSchema.DEFAULT_SCHEMA.getTables()) {
      Table<?> live = liveTable(OutboxNaming.tableName(name, generated));
      if (EVENT_LOG.contains(generated.getName()) && kind != TestDatabase.Kind.POSTGRES) {
        // PostgreSQL's event log (009) only; the classes come from the codegen's mirror of it.
        assertThat(live).as("live table %s", generated.getName()).isNull();
        continue;
      }
      assertThat(live).as("live table %s", generated.getName()).isNotNull();
      for (Field<?> field : generated.fields()) {
        Field<?> liveField = live.field(field.getName());
        String what = generated.getName() + "." + field.getName();
        assertThat(liveField).as("live column %s", what).isNotNull();
        assertThat(liveField.getDataType().nullable())
            .as("nullability of %s", what)
            .isEqualTo(field.getDataType().nullable());
        assertCompatible(what, field.getDataType().getSQLDataType(), liveField.getDataType());
      }
      if (generated.getPrimaryKey() == null) {
        assertThat(live.getPrimaryKey()).as("primary key of %s", generated.getName()).isNull();
      } else {
        assertThat(keyColumns(live.getPrimaryKey()))
            .as("primary key of %s", generated.getName())
            .isEqualTo(keyColumns(generated.getPrimaryKey()));
      }
      Set<List<String>> liveKeys =
          live.getKeys().stream().map(this::keyColumns).collect(Collectors.toSet());
      for (var key : generated.getKeys()) {
        assertThat(liveKeys).as("unique keys of %s", generated.getName()).contains(keyColumns(key));
      }
    }
  }

  private void assertCompatible(String what, DataType<?> generated, DataType<?> live) {
    DataType<?> liveType = live.getSQLDataType();
    if (generated.equals(SQLDataType.SMALLINT)) {
      assertThat(liveType)
          .as("type of %s (live %s)", what, live.getTypeName())
          .isEqualTo(SQLDataType.SMALLINT);
    } else if (generated.equals(SQLDataType.BIGINT)) {
      // SQLite's INTEGER is a 64-bit integer; elsewhere the column must be BIGINT itself.
      Set<DataType<?>> ok =
          kind == TestDatabase.Kind.SQLITE
              ? Set.of(SQLDataType.BIGINT, SQLDataType.INTEGER)
              : Set.of(SQLDataType.BIGINT);
      assertThat(ok).as("type of %s (live %s)", what, live.getTypeName()).contains(liveType);
    } else if (generated.equals(SQLDataType.INTEGER)) {
      assertThat(Set.<DataType<?>>of(SQLDataType.INTEGER, SQLDataType.BIGINT))
          .as("type of %s (live %s)", what, live.getTypeName())
          .contains(liveType);
    } else if (generated.isJSON()) {
      // PostgreSQL jsonb; MariaDB's JSON is LONGTEXT with a check; SQLite stores TEXT.
      assertThat(liveType.isJSON() || liveType.isString())
          .as("type of %s (live %s)", what, live.getTypeName())
          .isTrue();
      if (kind == TestDatabase.Kind.POSTGRES) {
        assertThat(live.getTypeName().toLowerCase(Locale.ROOT)).isEqualTo("jsonb");
      }
    } else if (generated.isString()) {
      assertThat(liveType.isString()).as("type of %s (live %s)", what, live.getTypeName()).isTrue();
    } else {
      throw new AssertionError("no compatibility rule for " + what + " of type " + generated);
    }
  }

  private List<String> keyColumns(Key<?> key) {
    assertThat(key).isNotNull();
    return key.getFields().stream()
        .map(f -> f.getName().toLowerCase(Locale.ROOT))
        .sorted()
        .toList();
  }

  /** Each index of {@code table} as "name(columns)", in the server's spelling. */
  private Set<String> indexes(String table) {
    return liveTable(table).getIndexes().stream()
        .map(
            i ->
                i.getName().toLowerCase(Locale.ROOT)
                    + i.getFields().stream()
                        .map(f -> f.getName().toLowerCase(Locale.ROOT))
                        .toList())
        .collect(Collectors.toSet());
  }

  /**
   * {@code types} of a default outbox's table as the named outbox's table of {@code prefix} has
   * them: a default that names the outbox's sequence (the event log's seq, 009) names the named
   * outbox's own.
   */
  private static List<String> namedDefaults(List<String> types, String prefix) {
    return types.stream()
        .map(t -> t.replace("'outbox_message_seq_seq'", "'" + prefix + "outbox_message_seq_seq'"))
        .toList();
  }

  /** Each column of {@code table} with its full type and collation, from information_schema. */
  private List<String> columnTypes(String table) {
    return db.dsl()
        .resultQuery(
            // Plain SQL: information_schema is read the same way on both servers.
            "select column_name, "
                + (kind == TestDatabase.Kind.MARIADB ? "column_type" : "data_type")
                + ", collation_name, is_nullable, column_default from information_schema.columns"
                + " where table_name = ? and table_schema = "
                + (kind == TestDatabase.Kind.MARIADB ? "database()" : "current_schema()")
                + " order by ordinal_position",
            table)
        .fetch()
        .map(r -> r.intoList().toString());
  }

  private Table<?> liveTable(String name) {
    DSLContext dsl = db.dsl();
    return dsl.meta().getTables().stream()
        .filter(t -> t.getName().equalsIgnoreCase(name))
        .filter(t -> t.getSchema() == null || inThisDatabase(t.getSchema().getName()))
        .findFirst()
        .orElse(null);
  }

  private boolean inThisDatabase(String schema) {
    return switch (kind) {
      case SQLITE -> true;
      case POSTGRES ->
          schema.equals(db.dsl().fetchValue(DSL.field("current_schema()", String.class)));
      case MARIADB -> schema.equals(db.dsl().fetchValue(DSL.field("database()", String.class)));
    };
  }

  private int appliedChangesets() {
    Table<?> changelog = liveTable("databasechangelog");
    if (changelog == null) {
      return 0;
    }
    // Liquibase spells the table in upper case on some dialects; use the name the server reports.
    return db.dsl()
        .fetchCount(
            DSL.table(DSL.name(changelog.getName())),
            changelog.field("filename", String.class) == null
                ? changelog.field("FILENAME", String.class).like("jooq-outbox/%")
                : changelog.field("filename", String.class).like("jooq-outbox/%"));
  }
}
