package dev.jooqoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jooqoutbox.Outbox;
import dev.jooqoutbox.OutboxName;
import dev.jooqoutbox.OutboxSchema;
import dev.jooqoutbox.testing.TestDatabase;
import dev.jooqoutbox.testing.TwoEmptyDatabasesPerTest;
import org.junit.jupiter.api.Test;

/** {@code --schema NAME} (docs/guide.md, "Named outboxes"): the commands work in that schema. */
abstract class CliSchemaOutboxContract extends TwoEmptyDatabasesPerTest {

  CliSchemaOutboxContract(TestDatabase.Kind kind) {
    super(kind);
  }

  @Test
  void migrateAndStatusWorkInTheSchema() {
    CliResult r = CliResult.run("migrate", "--db", db.url(), "--schema", other.name());

    assertThat(r.exitCode()).as(r.toString()).isZero();
    assertThat(OutboxSchema.isMigrated(other.dsl())).isTrue();
    assertThat(OutboxSchema.isMigrated(dsl)).isFalse();

    OutboxName inOther = OutboxName.DEFAULT.inSchema(other.name());
    Outbox outbox = Outbox.builder(dsl).name(inOther).build();
    dsl.transaction(tx -> outbox.write(tx.dsl(), "a1", "t", "{}"));
    CliResult status = CliResult.run("status", "--db", db.url(), "--schema", other.name());
    assertThat(status.exitCode()).as(status.toString()).isZero();
    CliResult plain = CliResult.run("status", "--db", db.url());
    assertThat(plain.exitCode()).as(plain.toString()).isNotZero(); // no tables in db's own schema
  }

  @Test
  void anInvalidSchemaIsNamed() {
    CliResult invalid = CliResult.run("status", "--db", db.url(), "--schema", "A;drop");
    assertThat(invalid.exitCode()).as(invalid.toString()).isEqualTo(2);
    assertThat(invalid.err()).contains("--schema: invalid schema name \"A;drop\"");
  }
}
