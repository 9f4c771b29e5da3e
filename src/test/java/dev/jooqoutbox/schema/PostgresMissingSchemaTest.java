package dev.jooqoutbox.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.jooqoutbox.OutboxException;
import dev.jooqoutbox.OutboxSchema;
import dev.jooqoutbox.testing.TestDatabase;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A PostgreSQL URL whose {@code currentSchema} names a schema that does not exist: {@link
 * OutboxSchema} names the missing schema instead of PostgreSQL's "no schema has been selected to
 * create in" from {@code migrate}, and instead of answering {@code isMigrated} from the tables of
 * other schemas (then every query failed with "relation outbox_message does not exist").
 */
class PostgresMissingSchemaTest {

  private TestDatabase db;
  private String missing;
  private HikariDataSource pool;

  @BeforeEach
  void poolOnAMissingSchema() {
    // A migrated schema exists next to the missing one, as on any shared server.
    db = TestDatabase.migrated(TestDatabase.Kind.POSTGRES);
    String current = db.url().replaceAll(".*[?&]currentSchema=([^&]*).*", "$1");
    missing = current + "_missing";
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(db.url().replace("currentSchema=" + current, "currentSchema=" + missing));
    config.setMaximumPoolSize(2);
    pool = new HikariDataSource(config);
  }

  @AfterEach
  void drop() {
    pool.close();
    db.dsl().execute("drop schema if exists " + missing + " cascade");
    db.close();
  }

  @Test
  void migrateNamesTheMissingSchema() {
    assertThatThrownBy(() -> OutboxSchema.migrate(pool))
        .isInstanceOf(OutboxException.class)
        .hasMessageStartingWith("schema \"" + missing + "\" does not exist")
        .hasMessageContaining("currentSchema");
  }

  @Test
  void isMigratedNamesTheMissingSchemaInsteadOfSeeingOtherSchemasTables() {
    assertThatThrownBy(() -> OutboxSchema.isMigrated(DSL.using(pool, SQLDialect.POSTGRES)))
        .isInstanceOf(OutboxException.class)
        .hasMessageStartingWith("schema \"" + missing + "\" does not exist");
  }

  @Test
  void onceTheSchemaExistsBothWork() {
    // The name is built above from a UUID-named schema, never from input.
    db.dsl().execute("create schema " + missing);
    assertThat(OutboxSchema.isMigrated(DSL.using(pool, SQLDialect.POSTGRES))).isFalse();
    OutboxSchema.migrate(pool);
    assertThat(OutboxSchema.isMigrated(DSL.using(pool, SQLDialect.POSTGRES))).isTrue();
  }
}
