package dev.jooqoutbox.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.table;

import dev.jooqoutbox.cli.OutboxCli;
import dev.jooqoutbox.testing.TestDatabase;
import dev.jooqoutbox.testing.TestDatabase.Kind;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jooq.DSLContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The demo on one dialect: it ends with PASS and exit code 0, with injected failures, injected lost
 * acknowledgements and several relays too. Every test starts from what the previous one left, so
 * each also shows that a second run on the same database starts clean.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class DemoContract {

  private final Kind kind;
  private TestDatabase db;

  DemoContract(Kind kind) {
    this.kind = kind;
  }

  @BeforeAll
  void open() {
    db = TestDatabase.empty(kind); // empty: the demo migrates it itself
  }

  @AfterAll
  void close() {
    db.close();
  }

  /** The URL of a database of this dialect that the demo may wipe. */
  String url() {
    return db.url();
  }

  /** A second way into the same database, to check the tables independently of the demo. */
  DSLContext dsl() {
    return db.dsl();
  }

  DemoRunner demo(String... extra) {
    List<String> args =
        new ArrayList<>(
            List.of("--db", url(), "--orders", "500", "--customers", "50", "--timeout", "60s"));
    args.addAll(List.of(extra));
    DemoRunner result = DemoRunner.run(new DemoCommand(), args.toArray(String[]::new));
    // Kept in the surefire output file: the summary of each run, for a look at the numbers.
    System.out.println(String.join(" ", args) + "\n" + result);
    return result;
  }

  static void assertPassed(DemoRunner result) {
    assertThat(result.exitCode()).as("%s", result).isZero();
    assertThat(result.out())
        .as("%s", result)
        .contains("PASS  every order booked exactly once: 500 orders, 500 ledger entries")
        .contains("PASS  per-customer booking order = placement order: 50 customers")
        .contains("PASS  nothing left pending: 0 pending, 0 dead, 500 sent")
        .endsWith(String.format(Locale.ROOT, "%n"))
        .containsPattern("(?m)^PASS$");
    assertThat(result.err()).as("%s", result).doesNotContain("Exception");
  }

  @Test
  void placesDeliversAndBooksEveryOrderOnce() {
    DemoRunner result = demo("--no-progress");

    assertPassed(result);
    assertThat(result.summaryCount("written")).isEqualTo(500);
    assertThat(result.summaryCount("delivered")).isEqualTo(500);
    assertThat(result.summaryCount("retries")).isZero();
    assertThat(result.out()).containsPattern("p50 [0-9.]+ ms  p95 [0-9.]+ ms  p99 [0-9.]+ ms");
    // Checked again here, without the demo's own queries.
    assertThat(dsl().fetchCount(table(name("outbox_demo_ledger_entry")))).isEqualTo(500);
    assertThat(dsl().fetchCount(table(name("outbox_demo_order")))).isEqualTo(500);
  }

  @Test
  void everyCustomerHasAnOrderOnceThereAreAsManyOrders() {
    // Picked at random, 60 orders would reach all 60 customers about once in 10^24 runs.
    DemoRunner result =
        DemoRunner.run(
            new DemoCommand(),
            "--db",
            url(),
            "--orders",
            "60",
            "--customers",
            "60",
            "--timeout",
            "60s",
            "--no-progress");

    assertThat(result.exitCode()).as("%s", result).isZero();
    assertThat(result.out())
        .as("%s", result)
        .contains("PASS  per-customer booking order = placement order: 60 customers");
  }

  @Test
  void passesWhenTheLedgerFailsAtRandom() {
    DemoRunner result = demo("--no-progress", "--fail-rate", "0.1");

    assertPassed(result);
    assertThat(result.summaryCount("retries")).isPositive();
    assertThat(result.summaryCount("dead")).isZero();
  }

  @Test
  void passesWithTwoRelays() {
    DemoRunner result = demo("--no-progress", "--relays", "2", "--fail-rate", "0.05");

    assertPassed(result);
    assertThat(result.out()).contains("2 relays");
  }

  @Test
  void theInboxDropsRedeliveredCopies() {
    DemoRunner result = demo("--no-progress", "--duplicate-rate", "0.1");

    assertPassed(result);
    assertThat(result.summaryCount("duplicates")).isPositive();
    assertThat(result.summaryCount("duplicates")).isEqualTo(result.summaryCount("retries"));
  }

  @Test
  void runsAsASubcommandOfTheOperatorCli() {
    DemoRunner result =
        DemoRunner.run(
            new OutboxCli(),
            "demo",
            "--db",
            url(),
            "--orders",
            "200",
            "--customers",
            "20",
            "--timeout",
            "60s");

    assertThat(result.exitCode()).as("%s", result).isZero();
    assertThat(result.out()).containsPattern("(?m)^PASS$");
    // Without a terminal the progress bar prints plain lines, on stderr.
    assertThat(result.err()).contains("written 200/200  delivered 200");
  }
}
