package dev.jooqoutbox.cli;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.jooqoutbox.Inbox;
import dev.jooqoutbox.OutboxAdmin;
import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.OutboxSchema;
import dev.jooqoutbox.testing.BulkMessages;
import dev.jooqoutbox.testing.DatabaseFixture;
import dev.jooqoutbox.testing.RowWriter;
import dev.jooqoutbox.testing.TestDatabase;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every CLI command against a real database of one dialect, through picocli's execute. A message
 * the tests claim, settle or dead-letter through the row-state repository is written as a row of
 * outbox_message on every database ({@link #writeRow}): the repository claims only those (on
 * PostgreSQL what the event log's copies are). The others are written with {@code Outbox} ({@link
 * #write}), wherever the database keeps them, so that the commands read both.
 */
abstract class CliContract extends DatabaseFixture {

  // Hides DatabaseFixture.START: the figures these tests print are written for noon.
  private static final Instant START = Instant.parse("2026-03-01T12:00:00Z");
  private static final Duration LEASE = Duration.ofMinutes(30);

  CliContract(TestDatabase.Kind kind) {
    super(kind);
  }

  /** A URL of this dialect where nothing listens (SQLite's test overrides it). */
  String unreachableUrl() {
    return kind == TestDatabase.Kind.POSTGRES
        ? "jdbc:postgresql://127.0.0.1:1/x"
        : "jdbc:mariadb://127.0.0.1:1/x";
  }

  @BeforeEach
  void setUp() {
    clock.set(START);
  }

  private CliResult run(String... args) {
    return CliResult.run(clock, args);
  }

  private String write(String aggregate, String topic, Object payload) {
    return db.dsl().transactionResult(tx -> outbox.write(tx.dsl(), aggregate, topic, payload));
  }

  /** A message as a row of outbox_message, for the repository's own claim; returns its id. */
  private String writeRow(String aggregate, String topic, Object payload) {
    long seq = new RowWriter(db.dsl(), clock).write(aggregate, topic, payload);
    return db.dsl().fetchValue(OUTBOX_MESSAGE.ID, OUTBOX_MESSAGE.SEQ.eq(seq));
  }

  /** Claims the next ready message of {@code topic} and dead-letters it with {@code error}. */
  private OutboxMessage deadLetterNext(String topic, String error) {
    OutboxMessage m = claimNext(topic, "dead-" + topic);
    assertThat(repository.deadLetter("dead-" + topic, m.seq(), error, clock.instant())).isTrue();
    return m;
  }

  private OutboxMessage claimNext(String topic, String token) {
    List<OutboxMessage> claimed = repository.claim(Set.of(topic), 1, LEASE, token, clock.instant());
    assertThat(claimed).hasSize(1);
    return claimed.get(0);
  }

  private static void assertNoStackTrace(CliResult r) {
    assertThat(r.err()).doesNotContain("\tat ").doesNotContain("Exception");
  }

  // ---------------------------------------------------------------- migrate

  @Test
  void migrateCreatesTheTablesAndAgainIsANoOp() {
    try (TestDatabase empty = TestDatabase.empty(kind)) {
      CliResult first = run("migrate", "--db", empty.url());
      assertThat(first.exitCode()).as(first.toString()).isZero();
      assertThat(first.out()).isEqualTo("created the outbox tables in " + empty.url() + "\n");
      assertThat(first.err()).isEmpty();
      assertThat(OutboxSchema.isMigrated(empty.dsl())).isTrue();

      CliResult again = run("migrate", "--db", empty.url());
      assertThat(again.exitCode()).as(again.toString()).isZero();
      assertThat(again.out())
          .isEqualTo("the outbox tables in " + empty.url() + " are up to date\n");
      assertThat(run("status", "--db", empty.url()).exitCode()).isZero();
    }
  }

  @Test
  void migrateDryRunPrintsTheSqlAndCreatesNoTable() {
    try (TestDatabase empty = TestDatabase.empty(kind)) {
      CliResult r = run("migrate", "--db", empty.url(), "--dry-run");
      assertThat(r.exitCode()).as(r.toString()).isZero();
      assertThat(r.out()).contains("CREATE TABLE outbox_message").contains("inbox_message");
      assertThat(r.err()).isEmpty();
      assertThat(OutboxSchema.isMigrated(empty.dsl())).isFalse();
    }
  }

  // ---------------------------------------------------------------- status

  /**
   * order.placed: three pending (a1, a1, a2), one of them leased. payment.taken: one dead, one
   * sent. Then two minutes pass.
   */
  private void writeStatusScenario() {
    writeRow("a1", "order.placed", Map.of("n", 1));
    writeRow("a1", "order.placed", Map.of("n", 2));
    write("a2", "order.placed", Map.of("n", 3)); // never claimed: where Outbox.write puts it
    writeRow("p1", "payment.taken", Map.of("n", 4));
    writeRow("p2", "payment.taken", Map.of("n", 5));
    deadLetterNext("payment.taken", "card declined");
    OutboxMessage sent = claimNext("payment.taken", "tok-sent");
    assertThat(repository.markSent("tok-sent", List.of(sent.seq()), clock.instant())).isEqualTo(1);
    claimNext("order.placed", "tok-leased");
    clock.advance(Duration.ofMinutes(2));
  }

  @Test
  void statusPrintsCountsPerTopicAndInTotal() {
    writeStatusScenario();
    CliResult r = run("status", "--db", db.url());
    assertThat(r.exitCode()).as(r.toString()).isZero();
    assertThat(r.err()).isEmpty();
    assertThat(r.out())
        .isEqualTo(
            "outbox in "
                + db.url()
                + " at 2026-03-01T12:02:00Z\n"
                + "\n"
                + "TOPIC          PENDING  LEASED  UNKNOWN  DEAD  SENT-AWAITING-PURGE"
                + "  OLDEST-PENDING-AGE\n"
                + "order.placed         3       1        0     0                    0  2m\n"
                + "payment.taken        0       0        0     1                    1  -\n"
                + "(all topics)         3       1        0     1                    1  2m\n");
  }

  @Test
  void statusJsonHasTheSameNumbers() throws Exception {
    writeStatusScenario();
    CliResult r = run("status", "--db", db.url(), "--json");
    assertThat(r.exitCode()).as(r.toString()).isZero();
    JsonNode json = new ObjectMapper().readTree(r.out());
    assertThat(json.get("database").asText()).isEqualTo(db.url());
    assertThat(json.get("at").asText()).isEqualTo("2026-03-01T12:02:00Z");
    JsonNode total = json.get("total");
    assertThat(total.get("pending").asLong()).isEqualTo(3);
    assertThat(total.get("leased").asLong()).isEqualTo(1);
    assertThat(total.get("unknown").asLong()).isZero();
    assertThat(total.get("dead").asLong()).isEqualTo(1);
    assertThat(total.get("sentAwaitingPurge").asLong()).isEqualTo(1);
    assertThat(total.get("oldestPendingAgeMillis").asLong()).isEqualTo(120_000);
    JsonNode orders = json.get("topics").get("order.placed");
    assertThat(orders.get("pending").asLong()).isEqualTo(3);
    assertThat(orders.get("leased").asLong()).isEqualTo(1);
    JsonNode payments = json.get("topics").get("payment.taken");
    assertThat(payments.get("dead").asLong()).isEqualTo(1);
    assertThat(payments.get("sentAwaitingPurge").asLong()).isEqualTo(1);
    // Nothing pending has no age: null, where the text prints "-".
    assertThat(payments.get("oldestPendingAgeMillis").isNull()).as("%s", payments).isTrue();
  }

  @Test
  void statusOfAnEmptyOutboxPrintsZeros() throws Exception {
    CliResult r = run("status", "--db", db.url(), "--json");
    assertThat(r.exitCode()).as(r.toString()).isZero();
    JsonNode json = new ObjectMapper().readTree(r.out());
    assertThat(json.get("total").get("pending").asLong()).isZero();
    assertThat(json.get("total").get("oldestPendingAgeMillis").isNull()).isTrue();
    assertThat(json.get("topics").size()).isZero();
  }

  @Test
  void countsPrintGroupedInStatusAndPurge() throws Exception {
    writeMany(1_234, "bulk.sent", true);
    writeMany(1_001, "bulk.pending", false);
    Inbox inbox = new Inbox(clock);
    db.dsl()
        .transaction(
            tx -> {
              for (int i = 0; i < 1_001; i++) {
                inbox.seen(tx.dsl(), "ledger", "m-" + i);
              }
            });
    clock.advance(Duration.ofDays(2));

    CliResult status = run("status", "--db", db.url());
    assertThat(status.exitCode()).as(status.toString()).isZero();
    assertThat(status.out())
        .endsWith(
            "TOPIC         PENDING  LEASED  UNKNOWN  DEAD  SENT-AWAITING-PURGE  OLDEST-PENDING-AGE\n"
                + "bulk.pending    1,001       0        0     0                    0  2d\n"
                + "bulk.sent           0       0        0     0                1,234  -\n"
                + "(all topics)    1,001       0        0     0                1,234  2d\n");
    JsonNode json = new ObjectMapper().readTree(run("status", "--db", db.url(), "--json").out());
    assertThat(json.get("total").get("sentAwaitingPurge").asLong()).isEqualTo(1_234);

    CliResult purge = run("purge", "--db", db.url(), "--older-than", "1d");
    assertThat(purge.exitCode()).as(purge.toString()).isZero();
    assertThat(purge.out())
        .startsWith("purged 1,234 sent outbox messages and 1,001 inbox rows older than 1d");
  }

  /**
   * Writes {@code count} messages of {@code topic} in one transaction; marks them sent. Sent ones
   * are rows of outbox_message, marked by an UPDATE of their sent_at (what a row records on every
   * database); pending ones are written with {@code Outbox}, wherever the database keeps them.
   */
  private void writeMany(int count, String topic, boolean sent) {
    db.dsl()
        .transaction(
            tx -> {
              if (!sent) {
                for (int i = 0; i < count; i++) {
                  outbox.write(tx.dsl(), "a-" + i, topic, "{}");
                }
                return;
              }
              BulkMessages.insertRows(
                  tx.dsl(),
                  count,
                  i ->
                      new BulkMessages.Row(
                          UUID.randomUUID().toString(), "a-" + i, topic, "{}", clock.instant()));
              tx.dsl()
                  .update(OUTBOX_MESSAGE)
                  .set(OUTBOX_MESSAGE.SENT_AT, clock.instant())
                  .where(OUTBOX_MESSAGE.TOPIC.eq(topic))
                  .execute();
            });
  }

  // ---------------------------------------------------------------- dead-letters

  @Test
  void deadLettersShowsEverythingButThePayload() {
    String id = writeRow("customer-7", "order.placed", Map.of("card", "4111-secret"));
    write("customer-8", "payment.taken", Map.of("n", 1));
    deadLetterNext("order.placed", "ledger down\n  at Ledger.book(Ledger.java:42)");
    clock.advance(Duration.ofHours(3));

    CliResult r = run("dead-letters", "--db", db.url());
    assertThat(r.exitCode()).as(r.toString()).isZero();
    assertThat(r.err()).isEmpty();
    assertThat(r.out())
        .contains("id          " + id + "\n")
        .contains("topic       order.placed\n")
        .contains("aggregate   customer-7\n")
        .contains("attempts    1\n")
        .contains("dead since  2026-03-01T12:00:00Z (3h ago)\n")
        .contains("last error  ledger down\n" + "              at Ledger.book(Ledger.java:42)\n")
        .endsWith("\n1 dead letter\n")
        .doesNotContain("4111-secret")
        .doesNotContain("payload");

    CliResult withPayload = run("dead-letters", "--db", db.url(), "--show-payload");
    assertThat(withPayload.exitCode()).isZero();
    assertThat(withPayload.out()).contains("payload     ").contains("4111-secret");
  }

  @Test
  void deadLettersFiltersByTopicAndLimits() {
    for (int i = 0; i < 3; i++) {
      writeRow("o" + i, "order.placed", Map.of("n", i));
      deadLetterNext("order.placed", "boom " + i);
    }
    writeRow("p", "payment.taken", Map.of("n", 9));
    deadLetterNext("payment.taken", "declined");

    CliResult payments = run("dead-letters", "--db", db.url(), "--topic", "payment.taken");
    assertThat(payments.exitCode()).isZero();
    assertThat(payments.out()).contains("declined").doesNotContain("boom");
    assertThat(payments.out()).endsWith("\n1 dead letter of topic payment.taken\n");

    CliResult limited = run("dead-letters", "--db", db.url(), "--limit", "2");
    assertThat(limited.exitCode()).isZero();
    assertThat(limited.out()).contains("boom 0").contains("boom 1").doesNotContain("boom 2");
    assertThat(limited.out())
        .endsWith("showing the first 2 dead letters; there are more (raise --limit)\n");

    CliResult none = run("dead-letters", "--db", db.url(), "--topic", "nothing.here");
    assertThat(none.exitCode()).isZero();
    assertThat(none.out()).isEqualTo("no dead letters of topic nothing.here\n");
  }

  // ---------------------------------------------------------------- pause and resume

  @Test
  void pauseHoldsATopicBackStatusListsItAndResumeLetsItGo() throws Exception {
    write("a", "order.placed", Map.of("n", 1));

    CliResult paused = run("pause", "--db", db.url(), "order.placed");
    assertThat(paused.exitCode()).as(paused.toString()).isZero();
    assertThat(paused.out()).isEqualTo("paused topic order.placed\n");
    CliResult again = run("pause", "--db", db.url(), "order.placed");
    assertThat(again.exitCode()).as(again.toString()).isZero();
    assertThat(again.out()).isEqualTo("topic already paused: order.placed\n");
    assertThat(OutboxAdmin.create(db.dsl(), clock).pausedTopics())
        .containsExactly(entry("order.placed", clock.instant()));

    CliResult status = run("status", "--db", db.url());
    assertThat(status.out())
        .endsWith(
            "\npaused: order.placed (since 2026-03-01T12:00:00Z); `outbox resume TOPIC` resumes"
                + " one\n");
    JsonNode json = new ObjectMapper().readTree(run("status", "--db", db.url(), "--json").out());
    assertThat(json.get("paused").get("order.placed").asText()).isEqualTo("2026-03-01T12:00:00Z");

    CliResult resumed = run("resume", "--db", db.url(), "order.placed");
    assertThat(resumed.exitCode()).as(resumed.toString()).isZero();
    assertThat(resumed.out()).isEqualTo("resumed topic order.placed\n");
    assertThat(run("resume", "--db", db.url(), "order.placed").out())
        .isEqualTo("topic was not paused: order.placed\n");
    assertThat(run("status", "--db", db.url()).out()).doesNotContain("paused:");
  }

  @Test
  void pauseRefusesATopicNoMessageHasUnlessForced() {
    write("a", "order.placed", Map.of("n", 1));
    CliResult typo = run("pause", "--db", db.url(), "order.plcaed");
    assertThat(typo.exitCode()).as(typo.toString()).isEqualTo(1);
    assertThat(typo.err())
        .isEqualTo(
            "outbox pause: no message has topic order.plcaed (a typo?); to pause it before its"
                + " first message, add --force\n");
    assertThat(OutboxAdmin.create(db.dsl(), clock).pausedTopics()).isEmpty();

    CliResult forced = run("pause", "--db", db.url(), "order.shipped", "--force");
    assertThat(forced.exitCode()).as(forced.toString()).isZero();
    assertThat(forced.out()).isEqualTo("paused topic order.shipped\n");
    assertThat(run("pause", "--db", db.url(), "order.shipped").out())
        .as("a paused topic is one")
        .isEqualTo("topic already paused: order.shipped\n");
  }

  @Test
  void aConsoleOnAPortInUseSaysSoInOneLine() throws Exception {
    try (java.net.ServerSocket taken =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      CliResult r =
          run("console", "--db", db.url(), "--port", String.valueOf(taken.getLocalPort()));
      assertThat(r.exitCode()).as(r.toString()).isEqualTo(1);
      assertThat(r.err())
          .startsWith("outbox console: cannot listen on 127.0.0.1 port " + taken.getLocalPort())
          .contains("choose another --port")
          .doesNotContain("\tat ")
          .hasLineCount(1);
    }
  }

  @Test
  void pauseRefusesATopicThatIsNotOneAndChangesNothing() {
    CliResult r = run("pause", "--db", db.url(), "x'; drop table outbox_message; --", "--force");
    assertThat(r.exitCode()).as(r.toString()).isEqualTo(1);
    assertThat(r.err()).startsWith("outbox pause: ").contains("topic");
    assertThat(OutboxAdmin.create(db.dsl(), clock).pausedTopics()).isEmpty();
    assertThat(run("status", "--db", db.url()).exitCode()).isZero();
  }

  // ---------------------------------------------------------------- console

  /** {@code outbox console} running on a thread of its own, at the address it printed. */
  private record RunningConsole(
      Thread thread, AtomicInteger exit, String printed, URI address, String token) {

    JsonNode overview() throws Exception {
      HttpResponse<String> overview =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(address.resolve("/api/overview"))
                      .header("Authorization", "Bearer " + token)
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(overview.statusCode()).isEqualTo(200);
      return new ObjectMapper().readTree(overview.body());
    }
  }

  private RunningConsole console(String... options) {
    StringWriter out = new StringWriter();
    AtomicInteger exit = new AtomicInteger(-1);
    List<String> args = new ArrayList<>(List.of("console", "--db", db.url()));
    args.addAll(List.of(options));
    Thread cli =
        new Thread(
            () ->
                exit.set(
                    OutboxCli.commandLine(clock)
                        .setOut(new PrintWriter(out, true))
                        .setErr(new PrintWriter(new StringWriter(), true))
                        .execute(args.toArray(String[]::new))));
    cli.start();
    await().atMost(Duration.ofSeconds(30)).until(() -> out.toString().contains("open http"));
    String url =
        out.toString().lines().filter(l -> l.startsWith("open ")).findFirst().orElseThrow();
    URI address = URI.create(url.substring("open ".length()));
    return new RunningConsole(
        cli, exit, out.toString(), address, address.getQuery().substring("token=".length()));
  }

  @Test
  void consoleActionsAreOffUnlessAsked() throws Exception {
    RunningConsole console = console("--actions");
    try {
      assertThat(console.printed()).doesNotContain("(read only)");
      assertThat(console.overview().get("actions").asBoolean()).as("--actions").isTrue();
    } finally {
      console.thread().interrupt();
      console.thread().join(10_000);
    }
    CliResult both = run("console", "--db", db.url(), "--actions", "--read-only");
    assertThat(both.exitCode()).as(both.toString()).isEqualTo(2);
    assertThat(both.err()).contains("--actions and --read-only exclude each other");
  }

  @Test
  void consoleServesItsPageAtTheAddressItPrintsUntilStopped() throws Exception {
    write("a", "order.placed", Map.of("n", 1));
    RunningConsole console = console();
    URI address = console.address();
    assertThat(address.getHost()).isEqualTo("127.0.0.1");
    assertThat(console.printed()).contains("(read only)");
    String token = console.token();
    Thread cli = console.thread();
    AtomicInteger exit = console.exit();

    HttpClient http = HttpClient.newHttpClient();
    JsonNode json = console.overview();
    assertThat(json.get("total").get("pending").asLong()).isOne();
    assertThat(json.get("actions").asBoolean()).as("read only by default").isFalse();
    assertThat(
            http.send(
                    HttpRequest.newBuilder(address.resolve("/api/overview")).build(),
                    HttpResponse.BodyHandlers.ofString())
                .statusCode())
        .isEqualTo(401);

    cli.interrupt();
    cli.join(10_000);
    assertThat(exit).hasValue(0);
  }

  @Test
  void consoleRefusesABadPortOrTokenBeforeListening() {
    // Bad arguments: exit 2, as docs/operations.md's table says (this test expected 1 before).
    CliResult port = run("console", "--db", db.url(), "--port", "70000");
    assertThat(port.exitCode()).isEqualTo(2);
    assertThat(port.err()).contains("--port");
    CliResult token = run("console", "--db", db.url(), "--token", "short");
    assertThat(token.exitCode()).isEqualTo(2);
    assertThat(token.err()).contains("--token");
  }

  // ---------------------------------------------------------------- requeue

  @Test
  void requeueByIdPutsTheDeadLetterBackToPending() {
    writeRow("a", "order.placed", Map.of("n", 1));
    String dead = deadLetterNext("order.placed", "boom").id();

    CliResult r = run("requeue", "--db", db.url(), dead);
    assertThat(r.exitCode()).as(r.toString()).isZero();
    assertThat(r.out()).isEqualTo("requeued 1 dead letter\n");
    assertThat(OutboxAdmin.create(db.dsl(), clock).stats().dead()).isZero();
    assertThat(OutboxAdmin.create(db.dsl(), clock).stats().pending()).isEqualTo(1);
    assertThat(claimNext("order.placed", "again").attempt()).isEqualTo(1);
  }

  @Test
  void requeueOfAnIdThatIsNotDeadFailsAfterRequeuingTheOthers() {
    writeRow("a", "order.placed", Map.of("n", 1));
    String dead = deadLetterNext("order.placed", "boom").id();
    String pending = write("b", "order.placed", Map.of("n", 2));

    CliResult r = run("requeue", "--db", db.url(), dead, pending, "no-such-id");
    assertThat(r.exitCode()).as(r.toString()).isEqualTo(1);
    assertThat(r.out()).isEqualTo("requeued 1 dead letter\n");
    assertThat(r.err())
        .isEqualTo(
            "outbox requeue: not a dead letter (unknown, pending or already sent): "
                + pending
                + ", no-such-id\n");
    assertThat(OutboxAdmin.create(db.dsl(), clock).stats().dead()).isZero();
  }

  @Test
  void requeueByTopicAndAll() {
    for (int i = 0; i < 3; i++) {
      writeRow("o" + i, "order.placed", Map.of("n", i));
      deadLetterNext("order.placed", "boom");
    }
    for (int i = 0; i < 2; i++) {
      writeRow("p" + i, "payment.taken", Map.of("n", i));
      deadLetterNext("payment.taken", "declined");
    }

    CliResult byTopic = run("requeue", "--db", db.url(), "--topic", "order.placed");
    assertThat(byTopic.exitCode()).as(byTopic.toString()).isZero();
    assertThat(byTopic.out()).isEqualTo("requeued 3 dead letters of topic order.placed\n");
    assertThat(OutboxAdmin.create(db.dsl(), clock).stats().dead()).isEqualTo(2);

    CliResult all = run("requeue", "--db", db.url(), "--all");
    assertThat(all.exitCode()).as(all.toString()).isZero();
    assertThat(all.out()).isEqualTo("requeued 2 dead letters\n");

    CliResult nothingLeft = run("requeue", "--db", db.url(), "--all");
    assertThat(nothingLeft.exitCode()).isZero();
    assertThat(nothingLeft.out()).isEqualTo("requeued 0 dead letters\n");
    assertThat(OutboxAdmin.create(db.dsl(), clock).stats().dead()).isZero();
  }

  // ---------------------------------------------------------------- purge

  @Test
  void purgeDeletesOldSentMessagesAndInboxRowsButKeepsDeadLetters() {
    writeRow("a", "order.placed", Map.of("n", 1));
    writeRow("b", "order.placed", Map.of("n", 2));
    writeRow("c", "order.placed", Map.of("n", 3));
    writeRow("d", "order.placed", Map.of("n", 4));
    List<OutboxMessage> claimed =
        repository.claim(Set.of("order.placed"), 3, LEASE, "tok", clock.instant());
    repository.markSent("tok", claimed.stream().map(OutboxMessage::seq).toList(), clock.instant());
    deadLetterNext("order.placed", "boom");
    repository.recordSeen(db.dsl(), "ledger", claimed.get(0).id(), clock.instant());

    clock.advance(Duration.ofDays(3));
    CliResult young = run("purge", "--db", db.url());
    assertThat(young.exitCode()).as(young.toString()).isZero();
    assertThat(young.out())
        .isEqualTo(
            "purged 0 sent outbox messages and 0 inbox rows older than 7d"
                + " (before 2026-02-25T12:00:00Z); dead letters are kept\n");

    CliResult old = run("purge", "--db", db.url(), "--older-than", "2d", "--batch-size", "2");
    assertThat(old.exitCode()).as(old.toString()).isZero();
    assertThat(old.out())
        .isEqualTo(
            "purged 3 sent outbox messages and 1 inbox row older than 2d"
                + " (before 2026-03-02T12:00:00Z); dead letters are kept\n");
    assertThat(OutboxAdmin.create(db.dsl(), clock).stats().dead()).isEqualTo(1);
    assertThat(OutboxAdmin.create(db.dsl(), clock).stats().sentAwaitingPurge()).isZero();
  }

  @Test
  void purgeDryRunPrintsTheCountsAndDeletesNothing() {
    writeRow("a", "order.placed", Map.of("n", 1));
    writeRow("b", "order.placed", Map.of("n", 2));
    writeRow("c", "order.placed", Map.of("n", 3));
    List<OutboxMessage> claimed =
        repository.claim(Set.of("order.placed"), 2, LEASE, "tok", clock.instant());
    repository.markSent("tok", claimed.stream().map(OutboxMessage::seq).toList(), clock.instant());
    deadLetterNext("order.placed", "boom");
    repository.recordSeen(db.dsl(), "ledger", claimed.get(0).id(), clock.instant());
    clock.advance(Duration.ofSeconds(1));

    CliResult dryRun = run("purge", "--db", db.url(), "--older-than=0s", "--dry-run");
    assertThat(dryRun.exitCode()).as(dryRun.toString()).isZero();
    assertThat(dryRun.err()).isEmpty();
    assertThat(dryRun.out())
        .isEqualTo(
            "would purge 2 sent outbox messages and 1 inbox row older than 0s"
                + " (before 2026-03-01T12:00:01Z); dead letters are kept"
                + " (dry run: nothing was deleted)\n");
    assertThat(OutboxAdmin.create(db.dsl(), clock).stats().sentAwaitingPurge()).isEqualTo(2);
    assertThat(db.dsl().fetchCount(dev.jooqoutbox.schema.Tables.INBOX_MESSAGE)).isOne();

    CliResult purge = run("purge", "--db", db.url(), "--older-than=0s");
    assertThat(purge.out())
        .startsWith("purged 2 sent outbox messages and 1 inbox row older than 0s");
  }

  // ---------------------------------------------------------------- errors

  @Test
  void everyCommandButMigrateRefusesAnUnmigratedDatabase() {
    try (TestDatabase empty = TestDatabase.empty(kind)) {
      for (String[] command :
          List.of(
              new String[] {"status"},
              new String[] {"status", "--json"},
              new String[] {"dead-letters"},
              new String[] {"requeue", "--all"},
              new String[] {"purge"})) {
        String[] args = new String[command.length + 2];
        System.arraycopy(command, 0, args, 0, command.length);
        args[command.length] = "--db";
        args[command.length + 1] = empty.url();
        CliResult r = run(args);
        assertThat(r.exitCode()).as(r.toString()).isEqualTo(1);
        assertThat(r.out()).isEmpty();
        assertThat(r.err())
            .isEqualTo(
                "outbox "
                    + command[0]
                    + ": the outbox tables are missing in "
                    + empty.url()
                    + ": run `outbox migrate --db '"
                    + empty.url()
                    + "'` first\n");
      }
    }
  }

  @Test
  void anUnreachableDatabaseIsOneLineOnStderr() {
    for (String command : List.of("migrate", "status", "dead-letters", "purge")) {
      CliResult r = run(command, "--db", unreachableUrl());
      assertThat(r.exitCode()).as(r.toString()).isEqualTo(1);
      assertThat(r.out()).isEmpty();
      assertThat(r.err())
          .startsWith("outbox " + command + ": cannot connect to " + unreachableUrl() + ": ");
      assertThat(r.err().lines()).hasSize(1);
      assertNoStackTrace(r);
    }
    CliResult requeue = run("requeue", "--db", unreachableUrl(), "some-id");
    assertThat(requeue.exitCode()).isEqualTo(1);
    assertThat(requeue.err()).contains("cannot connect to");
  }
}
