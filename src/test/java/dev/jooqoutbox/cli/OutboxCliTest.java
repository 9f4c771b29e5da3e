package dev.jooqoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jooqoutbox.internal.cli.JdbcUrls;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine.TypeConversionException;

/** What does not depend on a database: arguments, URLs, help, version, durations. */
class OutboxCliTest {

  private static final String SQLITE_URL = "jdbc:sqlite:never-created.db";

  private static void assertUsageError(CliResult r, String message) {
    assertThat(r.exitCode()).as(r.toString()).isEqualTo(2);
    assertThat(r.out()).isEmpty();
    assertThat(r.err()).contains(message).doesNotContain("\tat ");
  }

  @Test
  void unsupportedUrlsAreUsageErrorsRefusedBeforeConnecting() {
    for (String url : List.of("jdbc:oracle:thin:@//db:1521/x", "postgres://localhost/x", "x")) {
      for (String command :
          List.of("migrate", "status", "dead-letters", "unknown", "purge", "requeue")) {
        CliResult r =
            command.equals("requeue")
                ? CliResult.run(command, "--db", url, "--all")
                : CliResult.run(command, "--db", url);
        assertUsageError(
            r,
            "unsupported database URL "
                + url
                + ": use jdbc:postgresql://HOST:PORT/DB, jdbc:mariadb://HOST:PORT/DB,"
                + " jdbc:mysql://HOST:PORT/DB or jdbc:sqlite:FILE\n");
        assertThat(r.err()).as(r.toString()).contains("Usage: outbox " + command);
      }
    }
  }

  @Test
  void invalidOutboxAndSchemaNamesAreUsageErrors(@TempDir Path dir) {
    String url = "jdbc:sqlite:" + dir.resolve("any.db");
    assertUsageError(
        CliResult.run("status", "--db", url, "--outbox=Bad-Name"),
        "--outbox: invalid outbox name \"Bad-Name\"");
    assertUsageError(
        CliResult.run("migrate", "--db", url, "--outbox", "Bad-Name"),
        "--outbox: invalid outbox name \"Bad-Name\"");
    assertUsageError(
        CliResult.run("purge", "--db", url, "--schema", "A;drop"),
        "--schema: invalid schema name \"A;drop\"");
    assertThat(Files.exists(dir.resolve("any.db"))).as("nothing was opened").isFalse();
  }

  @Test
  void theHelpSaysWhatEachExitCodeMeans() {
    assertThat(CliResult.run("--help").out())
        .contains("Exit codes: 0 done, 1 failed (the reason is on stderr), 2 bad arguments.");
  }

  @Test
  void passwordsInUrlsAreMaskedInMessages() {
    CliResult r =
        CliResult.run("status", "--db", "jdbc:postgresql://127.0.0.1:1/x?user=u&password=hunter2");
    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.err())
        .startsWith(
            "outbox status: cannot connect to jdbc:postgresql://127.0.0.1:1/x?user=u&password=***: ")
        .doesNotContain("hunter2");
    assertThat(JdbcUrls.redact("jdbc:mariadb://root:hunter2@db:3306/x"))
        .isEqualTo("jdbc:mariadb://root:***@db:3306/x");
  }

  @Test
  void theUrlGetsTheSettingsTheOutboxNeeds() {
    assertThat(JdbcUrls.effectiveUrl("jdbc:sqlite:a.db"))
        .isEqualTo("jdbc:sqlite:a.db?journal_mode=WAL&busy_timeout=30000");
    assertThat(JdbcUrls.effectiveUrl("jdbc:sqlite:a.db?busy_timeout=5&JOURNAL_MODE=DELETE"))
        .isEqualTo("jdbc:sqlite:a.db?busy_timeout=5&JOURNAL_MODE=DELETE");
    assertThat(JdbcUrls.effectiveUrl("jdbc:mysql://h/db?user=u"))
        .isEqualTo("jdbc:mysql://h/db?user=u&permitMysqlScheme=true");
    assertThat(JdbcUrls.effectiveUrl("jdbc:postgresql://h/db")).isEqualTo("jdbc:postgresql://h/db");
  }

  @Test
  void aMissingDbOptionIsAUsageError() {
    for (String command : List.of("migrate", "status", "dead-letters", "purge")) {
      assertUsageError(CliResult.run(command), "Missing required option: '--db=URL'");
      assertThat(CliResult.run(command).err()).contains("Usage: outbox " + command);
    }
    assertUsageError(CliResult.run("requeue", "--all"), "Missing required option: '--db=URL'");
  }

  @Test
  void requeueTakesExactlyOneOfIdsTopicAndAll() {
    assertUsageError(
        CliResult.run("requeue", "--db", SQLITE_URL, "some-id", "--all"), "mutually exclusive");
    assertUsageError(
        CliResult.run("requeue", "--db", SQLITE_URL, "--topic", "t", "--all"),
        "mutually exclusive");
    assertUsageError(CliResult.run("requeue", "--db", SQLITE_URL), "Missing required argument");
  }

  @Test
  void badNumbersAndDurationsAreUsageErrors() {
    assertUsageError(
        CliResult.run("purge", "--db", SQLITE_URL, "--older-than", "7x"),
        "Invalid value for option '--older-than': '7x' is not a duration:"
            + " use a number and a unit, such as 30s, 15m, 12h or 7d");
    assertUsageError(
        CliResult.run("purge", "--db", SQLITE_URL, "--batch-size", "0"),
        "--batch-size must be at least 1");
    assertUsageError(
        CliResult.run("dead-letters", "--db", SQLITE_URL, "--limit", "0"),
        "--limit must be between 1 and");
    assertUsageError(
        CliResult.run("dead-letters", "--db", SQLITE_URL, "--limit", "many"),
        "Invalid value for option '--limit'");
    assertUsageError(CliResult.run("status", "--db", SQLITE_URL, "--jsn"), "Unknown option");
  }

  @Test
  void aMistypedOptionIsReportedAsUnknownEvenWithARequiredOneMissing() {
    CliResult r = CliResult.run("status", "--dbb", SQLITE_URL);
    assertUsageError(r, "Unknown option: '--dbb'");
    assertThat(r.err()).doesNotContain("Missing required option");
    assertUsageError(CliResult.run("status", "--dbb=" + SQLITE_URL), "Unknown option: '--dbb=");
    assertUsageError(CliResult.run("status"), "Missing required option: '--db=URL'");
  }

  @Test
  void badConsoleArgumentsAreUsageErrorsFoundBeforeTheDatabaseIsOpened() {
    // The SQLite file does not exist: had the database been opened first, that would be the error.
    assertUsageError(
        CliResult.run("console", "--db", SQLITE_URL, "--port", "99999"),
        "--port is 0 to 65535, was 99999");
    assertUsageError(
        CliResult.run("console", "--db", SQLITE_URL, "--token", "ab"),
        "--token: a console token is at least 16 characters");
  }

  @Test
  void aMissingOrUnknownSubcommandIsAUsageError() {
    assertUsageError(CliResult.run(), "Missing required subcommand");
    assertThat(CliResult.run().err()).contains("Usage: outbox [-hV] [COMMAND]");
    assertUsageError(CliResult.run("statu"), "Did you mean: outbox status");
  }

  @Test
  void everyCommandHasHelp() {
    CliResult top = CliResult.run("--help");
    assertThat(top.exitCode()).isZero();
    assertThat(top.out())
        .contains("Usage: outbox")
        .contains("migrate")
        .contains("status")
        .contains("dead-letters")
        .contains("requeue")
        .contains("purge")
        .contains("Exit codes: 0 done, 1 failed");
    assertThat(
            top.out()
                .lines()
                .map(String::strip)
                .map(l -> l.split(" ")[0])
                .filter(List.of("pause", "resume", "purge", "console")::contains)
                .toList())
        .as("pause and resume together, the console after the commands of one run")
        .containsExactly("pause", "resume", "purge", "console");
    for (String command : List.of("migrate", "status", "dead-letters", "requeue", "purge")) {
      CliResult r = CliResult.run(command, "--help");
      assertThat(r.exitCode()).as(r.toString()).isZero();
      assertThat(r.out()).startsWith("Usage: outbox " + command).contains("--db=URL");
      assertThat(CliResult.run("help", command).out()).isEqualTo(r.out());
    }
  }

  @Test
  void versionIsPrinted() {
    CliResult r = CliResult.run("--version");
    assertThat(r.exitCode()).isZero();
    assertThat(r.out()).startsWith("outbox (jooq-outbox) ");
  }

  @Test
  void durationsReadAndPrintLikeOperatorsWriteThem() {
    assertThat(Durations.parse("30s")).isEqualTo(Duration.ofSeconds(30));
    assertThat(Durations.parse("15m")).isEqualTo(Duration.ofMinutes(15));
    assertThat(Durations.parse("12h")).isEqualTo(Duration.ofHours(12));
    assertThat(Durations.parse("7d")).isEqualTo(Duration.ofDays(7));
    for (String bad : List.of("", "7", "d", "-1d", "1.5h", "7 d", "P7D", "1w")) {
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> Durations.parse(bad))
          .as(bad)
          .isInstanceOf(TypeConversionException.class);
    }
    assertThat(Durations.format(Duration.ZERO)).isEqualTo("0s");
    assertThat(Durations.format(Duration.ofMillis(999))).isEqualTo("0s");
    assertThat(Durations.format(Duration.ofSeconds(45))).isEqualTo("45s");
    assertThat(Durations.format(Duration.ofSeconds(125))).isEqualTo("2m5s");
    assertThat(Durations.format(Duration.ofMinutes(15))).isEqualTo("15m");
    assertThat(Durations.format(Duration.ofMinutes(61))).isEqualTo("1h1m");
    assertThat(Durations.format(Duration.ofDays(7))).isEqualTo("7d");
    assertThat(Durations.format(Duration.ofHours(76).plusMinutes(5))).isEqualTo("3d4h");
  }
}
