package dev.jooqoutbox.cli.demo;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.jooqoutbox.Outbox;
import dev.jooqoutbox.cli.OutboxCli;
import dev.jooqoutbox.testing.TestDatabase;
import dev.jooqoutbox.testing.TestDatabase.Kind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the demo says about its arguments and its database, on SQLite. */
class DemoCommandTest {

  @TempDir Path dir;

  @Test
  void createsAMissingSqliteFileAndNamesIt() {
    Path file = dir.resolve("fresh.db");

    DemoRunner result =
        DemoRunner.run(
            new DemoCommand(),
            "--db",
            "jdbc:sqlite:" + file,
            "--orders",
            "100",
            "--customers",
            "10",
            "--no-progress");

    assertThat(result.exitCode()).as("%s", result).isZero();
    assertThat(Files.exists(file)).isTrue();
    assertThat(result.out())
        .contains("outbox demo on the SQLite file " + file.toAbsolutePath() + " (new)")
        .contains("./outbox status --db jdbc:sqlite:" + file);
  }

  @Test
  void countsPrintGroupedInTheReportAsStatusPrintsThem() {
    String url = "jdbc:sqlite:" + dir.resolve("grouped.db");
    DemoRunner demo =
        DemoRunner.run(
            new DemoCommand(),
            "--db",
            url,
            "--orders",
            "1000",
            "--customers",
            "10",
            "--no-progress");
    assertThat(demo.exitCode()).as("%s", demo).isZero();
    assertThat(demo.out())
        .contains("1,000 orders for 10 customers")
        .contains("written     1,000 orders")
        .contains("delivered   1,000 bookings")
        .contains("1,000 orders, 1,000 ledger entries")
        .contains("0 pending, 0 dead, 1,000 sent");

    DemoRunner status = DemoRunner.run(new OutboxCli(), "status", "--db", url);
    assertThat(status.exitCode()).as("%s", status).isZero();
    assertThat(status.out()).containsPattern("(?m)^\\(all topics\\) +0 +0 +0 +0 +1,000  -$");
  }

  @Test
  void helpSaysWhatItWipes() {
    DemoRunner result = DemoRunner.run(new OutboxCli(), "demo", "--help");

    assertThat(result.exitCode()).isZero();
    assertThat(result.out().replaceAll("\\s+", " "))
        .contains("WIPES")
        .contains("outbox_message and inbox_message")
        .contains("--fail-rate")
        .contains("--relays")
        .contains("--no-progress")
        .contains("Default: jdbc:sqlite:outbox-demo.db");
  }

  @Test
  void refusesBadArgumentsWithUsageExitCode() {
    assertUsageError(new String[] {"--orders", "0"}, "--orders must be between 1 and");
    assertUsageError(new String[] {"--fail-rate", "1.5"}, "--fail-rate must be between 0 and 0.9");
    assertUsageError(new String[] {"--relays", "x"}, "'x' is not an int");
    assertUsageError(new String[] {"--timeout", "soon"}, "'soon' is not a duration");
  }

  private static void assertUsageError(String[] args, String message) {
    DemoRunner result = DemoRunner.run(new DemoCommand(), args);
    assertThat(result.exitCode()).as("%s", result).isEqualTo(2);
    assertThat(result.err()).as("%s", result).contains(message);
  }

  @Test
  void saysWhyItCannotRunOnAnUnsupportedOrUnreachableDatabase() {
    DemoRunner unsupported =
        DemoRunner.run(new DemoCommand(), "--db", "jdbc:oracle:thin:@x:1521/db");
    assertThat(unsupported.exitCode()).isEqualTo(1);
    assertThat(unsupported.err())
        .startsWith("demo: unsupported database URL jdbc:oracle:thin:@x:1521/db")
        .doesNotContain("Exception");

    DemoRunner unreachable =
        DemoRunner.run(
            new DemoCommand(), "--db", "jdbc:postgresql://127.0.0.1:1/nowhere?password=secret");
    assertThat(unreachable.exitCode()).isEqualTo(1);
    assertThat(unreachable.err())
        .startsWith("demo: cannot connect to jdbc:postgresql://127.0.0.1:1/nowhere?password=***")
        .doesNotContain("secret")
        .doesNotContain("\tat ");

    DemoRunner memory = DemoRunner.run(new DemoCommand(), "--db", "jdbc:sqlite::memory:");
    assertThat(memory.exitCode()).isEqualTo(1);
    assertThat(memory.err()).contains("needs a SQLite file");
  }

  @Test
  void leavesAnOutboxWithRowsItDidNotWriteAloneUnlessToldToWipe() {
    try (TestDatabase db = TestDatabase.migrated(Kind.SQLITE)) {
      Outbox outbox = Outbox.create(db.dsl());
      db.dsl().transaction(tx -> outbox.write(tx.dsl(), "invoice-1", "invoice.paid", Map.of()));

      DemoRunner refused =
          DemoRunner.run(new DemoCommand(), "--db", db.url(), "--orders", "50", "--no-progress");
      assertThat(refused.exitCode()).as("%s", refused).isEqualTo(1);
      assertThat(refused.err()).contains("holds outbox messages the demo did not write", "--wipe");
      assertThat(db.dsl().fetchCount(OUTBOX_MESSAGE)).isEqualTo(1);

      DemoRunner wiped =
          DemoRunner.run(
              new DemoCommand(),
              "--db",
              db.url(),
              "--orders",
              "50",
              "--customers",
              "5",
              "--no-progress",
              "--wipe");
      assertThat(wiped.exitCode()).as("%s", wiped).isZero();
      assertThat(db.dsl().fetchCount(OUTBOX_MESSAGE, OUTBOX_MESSAGE.TOPIC.eq("invoice.paid")))
          .isZero();
    }
  }

  @Test
  void pacesTheWritersAtTheGivenRate() {
    DemoRunner result =
        quietDemoOn("paced.db", "--orders", "100", "--customers", "10", "--rate", "200");

    assertThat(result.exitCode()).as("%s", result).isZero();
    assertThat(result.out()).contains("from 4 writers at 200/s");
    // 100 orders at 200/s: the last writer's last order is due after 0.48 s.
    java.util.regex.Matcher took =
        java.util.regex.Pattern.compile("written +100 orders with their messages in ([0-9.]+) s")
            .matcher(result.out());
    assertThat(took.find()).as("%s", result).isTrue();
    assertThat(Double.parseDouble(took.group(1))).isGreaterThanOrEqualTo(0.45);
  }

  @Test
  void failsWhenTheTimeoutEndsTheRun() {
    DemoRunner result = quietDemoOn("slow.db", "--orders", "1000000", "--timeout", "1s");

    assertThat(result.exitCode()).as("%s", result).isEqualTo(1);
    assertThat(result.out())
        .contains("then the timeout of 1s ended the run")
        .containsPattern("(?m)^FAIL$");
  }

  /** The demo on SQLite file {@code file} of the test's directory, without its progress bar. */
  private DemoRunner quietDemoOn(String file, String... options) {
    List<String> args = new ArrayList<>(List.of("--db", "jdbc:sqlite:" + dir.resolve(file)));
    args.addAll(List.of(options));
    args.add("--no-progress");
    return DemoRunner.run(new DemoCommand(), args.toArray(String[]::new));
  }
}
