package dev.jooqoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jooqoutbox.testing.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code status} and {@code migrate} on a PostgreSQL URL whose {@code currentSchema} does not exist
 * name the missing schema (they said "relation outbox_message does not exist" and "no schema has
 * been selected to create in").
 */
class PostgresCliMissingSchemaTest {

  private TestDatabase db;
  private String missing;
  private String url;

  @BeforeEach
  void urlOfAMissingSchema() {
    db = TestDatabase.migrated(TestDatabase.Kind.POSTGRES); // other schemas hold the tables
    String current = db.url().replaceAll(".*[?&]currentSchema=([^&]*).*", "$1");
    missing = current + "_missing";
    url = db.url().replace("currentSchema=" + current, "currentSchema=" + missing);
  }

  @AfterEach
  void drop() {
    db.close();
  }

  @Test
  void statusNamesTheMissingSchema() {
    CliResult result = CliResult.run("status", "--db", url);
    assertThat(result.exitCode()).as(result.toString()).isEqualTo(1);
    assertThat(result.err())
        .as(result.toString())
        .startsWith("outbox status: schema \"" + missing + "\" does not exist");
  }

  @Test
  void migrateNamesTheMissingSchema() {
    CliResult result = CliResult.run("migrate", "--db", url);
    assertThat(result.exitCode()).as(result.toString()).isEqualTo(1);
    assertThat(result.err())
        .as(result.toString())
        .startsWith("outbox migrate: schema \"" + missing + "\" does not exist");
  }
}
