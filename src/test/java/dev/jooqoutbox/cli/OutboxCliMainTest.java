package dev.jooqoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jooqoutbox.testing.TestDatabase;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link OutboxCli#main} in a child JVM, as an operator runs it: the exit code reaches the shell,
 * and the terminal shows the command's output only (no Liquibase banner or log, no jOOQ logo, no
 * logback status, no Hikari stack trace).
 */
class OutboxCliMainTest {

  private record Exit(int code, String out, String err) {}

  private static Exit main(Path dir, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(OutboxCli.class.getName());
    command.addAll(List.of(args));
    Path out = dir.resolve("out.txt");
    Path err = dir.resolve("err.txt");
    Process process =
        new ProcessBuilder(command)
            .directory(dir.toFile())
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .start();
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("the CLI finished").isTrue();
    return new Exit(
        process.exitValue(),
        Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }

  @Test
  void commandsPrintOnlyTheirOwnOutput(@TempDir Path dir) throws Exception {
    String url = "jdbc:sqlite:" + dir.resolve("outbox.db");

    Exit migrate = main(dir, "migrate", "--db", url);
    assertThat(migrate.err()).isEmpty();
    assertThat(migrate.out()).isEqualTo("created the outbox tables in " + url + "\n");
    assertThat(migrate.code()).isZero();

    Exit status = main(dir, "status", "--db", url);
    assertThat(status.err()).isEmpty();
    assertThat(status.out()).startsWith("outbox in " + url + " at ").contains("(all topics)");
    assertThat(status.code()).isZero();
  }

  /** Liquibase warns about its lock table, and the MariaDB driver logs its probes, unless told. */
  @Test
  void dryRunOnAFreshDatabasePrintsOnlyTheSql(@TempDir Path dir) throws Exception {
    try (TestDatabase mariadb = TestDatabase.empty(TestDatabase.Kind.MARIADB)) {
      for (String url : List.of("jdbc:sqlite:" + dir.resolve("fresh.db"), mariadb.url())) {
        Exit dryRun = main(dir, "migrate", "--db", url, "--dry-run");
        assertThat(dryRun.err()).as(url).isEmpty();
        assertThat(dryRun.out()).contains("CREATE TABLE outbox_message");
        assertThat(dryRun.code()).isZero();
      }
      assertThat(dir.resolve("fresh.db")).as("a dry run creates no file").doesNotExist();
    }
  }

  @Test
  void failuresReachTheShellAsExitCodes(@TempDir Path dir) throws Exception {
    Exit unreachable = main(dir, "status", "--db", "jdbc:postgresql://127.0.0.1:1/x");
    assertThat(unreachable.code()).isEqualTo(1);
    assertThat(unreachable.out()).isEmpty();
    assertThat(unreachable.err())
        .startsWith("outbox status: cannot connect to jdbc:postgresql://127.0.0.1:1/x: ")
        .doesNotContain("\tat ");
    assertThat(unreachable.err().lines()).hasSize(1);

    Exit usage = main(dir, "status");
    assertThat(usage.code()).isEqualTo(2);
    assertThat(usage.err()).startsWith("Missing required option: '--db=URL'");
  }
}
