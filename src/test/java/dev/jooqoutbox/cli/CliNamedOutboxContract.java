package dev.jooqoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.jooqoutbox.Outbox;
import dev.jooqoutbox.OutboxName;
import dev.jooqoutbox.OutboxSchema;
import dev.jooqoutbox.testing.EmptyDatabasePerTest;
import dev.jooqoutbox.testing.TestDatabase;
import org.junit.jupiter.api.Test;

/** {@code --outbox NAME} (docs/guide.md, "Named outboxes"): every command works on that outbox. */
abstract class CliNamedOutboxContract extends EmptyDatabasePerTest {

  private static final OutboxName ALPHA = OutboxName.of("alpha");

  CliNamedOutboxContract(TestDatabase.Kind kind) {
    super(kind);
  }

  @Test
  void migrateCreatesOnlyTheNamedOutboxsTables() {
    CliResult dryRun = CliResult.run("migrate", "--db", db.url(), "--outbox", "alpha", "--dry-run");
    assertThat(dryRun.exitCode()).as(dryRun.toString()).isZero();
    assertThat(dryRun.out()).contains("CREATE TABLE alpha_outbox_message");
    assertThat(OutboxSchema.isMigrated(dsl, ALPHA)).isFalse();

    CliResult r = CliResult.run("migrate", "--db", db.url(), "--outbox", "alpha");

    assertThat(r.exitCode()).as(r.toString()).isZero();
    assertThat(r.out()).isEqualTo("created the tables of outbox alpha in " + db.url() + "\n");
    assertThat(OutboxSchema.isMigrated(dsl, ALPHA)).isTrue();
    assertThat(OutboxSchema.isMigrated(dsl)).isFalse();
  }

  @Test
  void commandsSeeOnlyTheNamedOutbox() throws Exception {
    OutboxSchema.migrate(db.dataSource(), ALPHA);
    db.migrate();
    Outbox alpha = Outbox.builder(dsl).name(ALPHA).build();
    Outbox plain = Outbox.create(dsl);
    dsl.transaction(tx -> alpha.write(tx.dsl(), "a1", "t", "{}"));
    dsl.transaction(tx -> plain.write(tx.dsl(), "a1", "t", "{}"));
    dsl.transaction(tx -> plain.write(tx.dsl(), "a2", "t", "{}"));

    assertThat(pending("--outbox", "alpha")).isEqualTo(1);
    assertThat(pending()).isEqualTo(2);
    for (String[] command :
        new String[][] {
          {"dead-letters"}, {"unknown"}, {"purge", "--older-than", "1d"}, {"requeue", "--all"}
        }) {
      String[] args = new String[command.length + 4];
      System.arraycopy(command, 0, args, 0, command.length);
      System.arraycopy(
          new String[] {"--db", db.url(), "--outbox", "alpha"}, 0, args, command.length, 4);
      CliResult r = CliResult.run(args);
      assertThat(r.exitCode()).as(r.toString()).isZero();
    }
  }

  @Test
  void anInvalidOrMissingOutboxIsNamed() {
    db.migrate();
    CliResult invalid = CliResult.run("status", "--db", db.url(), "--outbox", "Alpha;drop");
    assertThat(invalid.exitCode()).as(invalid.toString()).isEqualTo(2);
    assertThat(invalid.err()).contains("--outbox: invalid outbox name \"Alpha;drop\"");

    CliResult missing = CliResult.run("status", "--db", db.url(), "--outbox", "alpha");
    assertThat(missing.exitCode()).as(missing.toString()).isNotZero();
    assertThat(missing.err())
        .contains("the tables of outbox alpha are missing")
        .contains("run `outbox migrate --db ")
        .contains(" --outbox alpha` first");
  }

  private long pending(String... outbox) throws Exception {
    String[] args = new String[4 + outbox.length];
    System.arraycopy(new String[] {"status", "--db", db.url(), "--json"}, 0, args, 0, 4);
    System.arraycopy(outbox, 0, args, 4, outbox.length);
    CliResult r = CliResult.run(args);
    assertThat(r.exitCode()).as(r.toString()).isZero();
    JsonNode json = new ObjectMapper().readTree(r.out());
    return json.get("total").get("pending").asLong();
  }
}
