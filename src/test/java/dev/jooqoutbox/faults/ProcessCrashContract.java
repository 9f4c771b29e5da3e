package dev.jooqoutbox.faults;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.jooqoutbox.testing.TestDatabase;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.jooq.DSLContext;
import org.jooq.JSON;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Relays in separate JVMs drain a backlog into the inbox-guarded ledger while the test kills them
 * with SIGKILL at random moments and starts them again. Afterwards every message is booked exactly
 * once, in {@code seq} order per aggregate, nothing is pending once the last lease has expired, and
 * the copies the inbox dropped are no more than one batch per kill.
 *
 * <p>The backlog is inserted in bulk before the relays start (writing is not under test here, and
 * 20,000 single writes would take most of the time budget on a busy CI machine). Should the relays
 * catch up before the last kill, the test tops the backlog up, so every kill lands mid-drain; the
 * message count printed is the total. The random seed is printed; rerun one with {@code
 * -Dfaults.seed=...}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ProcessCrashContract {

  static final Duration LEASE = Duration.ofSeconds(2);
  static final int BATCH_SIZE = 50;
  static final int HANDLER_CONCURRENCY = 2;
  static final int MIN_KILLS = 6;

  private final TestDatabase.Kind kind;
  private final int processes;
  private final int messages;
  private final int aggregates;
  private TestDatabase db;
  private Path logs;
  private final List<ChildJvm> children = new ArrayList<>();
  private int written;
  private final String applicationName = "fault-crash-" + UUID.randomUUID();

  ProcessCrashContract(TestDatabase.Kind kind, int processes, int messages, int aggregates) {
    this.kind = kind;
    this.processes = processes;
    this.messages = messages;
    this.aggregates = aggregates;
  }

  @BeforeAll
  void createDatabase() throws IOException {
    Faults.quietLogs();
    db = TestDatabase.migrated(kind);
    Faults.createLedgerTables(db.dsl());
    logs = Files.createTempDirectory("fault-relays-");
  }

  @AfterAll
  void dropDatabase() {
    children.forEach(ChildJvm::kill);
    if (kind == TestDatabase.Kind.POSTGRES) {
      // A killed relay's statement can run on in its backend until it next talks to the client.
      db.dsl()
          .fetch(
              "select pg_terminate_backend(pid) from pg_stat_activity where application_name = ?",
              applicationName);
    }
    db.close();
  }

  @Test
  void killedRelaysLoseNothingAndTheInboxDropsEveryCopy() {
    long seed = Long.getLong("faults.seed", System.nanoTime());
    Random random = new Random(seed);
    System.out.printf(
        "%s process crash: %d messages over %d aggregates, %d relay processes, seed %d, logs %s%n",
        kind, messages, aggregates, processes, seed, logs);
    DSLContext dsl = db.dsl();
    writeMessages(dsl, messages);

    long drainStart = System.nanoTime();
    ChildJvm[] slots = new ChildJvm[processes];
    int[] incarnations = new int[processes];
    for (int i = 0; i < processes; i++) {
      slots[i] = startRelay(i, incarnations[i]++);
    }

    int kills = 0;
    List<String> killLog = new ArrayList<>();
    long killDeadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (kills < MIN_KILLS && System.nanoTime() < killDeadline) {
      sleep(200 + random.nextInt(600));
      long pending = pending(dsl);
      if (pending < 5L * BATCH_SIZE * processes) {
        writeMessages(dsl, 1000); // keep the relays busy until the last kill
      }
      // Only relays that are booking: a kill during JVM start-up would prove little.
      List<Integer> working = new ArrayList<>();
      for (int i = 0; i < processes; i++) {
        if (slots[i].printed("ACTIVE")) {
          working.add(i);
        }
      }
      if (working.isEmpty()) {
        continue;
      }
      int victim = working.get(random.nextInt(working.size()));
      slots[victim].kill();
      kills++;
      killLog.add(
          "relay-" + victim + " at " + millisSince(drainStart) + " ms, pending " + pending(dsl));
      slots[victim] = startRelay(victim, incarnations[victim]++);
    }
    System.out.println("SIGKILLs: " + killLog);
    assertThat(kills).as("kills of working relays: %s", killLog).isGreaterThanOrEqualTo(MIN_KILLS);

    try {
      await("the drain after the last kill")
          .atMost(Duration.ofSeconds(150))
          .pollInterval(Duration.ofMillis(250))
          .until(() -> pending(dsl) == 0);
    } catch (RuntimeException e) {
      StringBuilder tails = new StringBuilder();
      for (ChildJvm child : slots) {
        tails.append("\n--- relay log:\n").append(child.tail(30));
      }
      throw new AssertionError("still pending: " + pending(dsl) + tails, e);
    }
    long drainMillis = millisSince(drainStart);
    for (ChildJvm child : slots) {
      child.kill();
    }

    // The last kills above may have left leases; once they expire, nothing may still be owed.
    sleep(LEASE.toMillis() + 100);
    assertThat(pending(dsl)).as("pending after the last lease expired").isZero();
    assertThat(dsl.fetchCount(OUTBOX_MESSAGE, OUTBOX_MESSAGE.DEAD_AT.isNotNull()))
        .as("dead letters")
        .isZero();
    assertThat(dsl.fetchCount(OUTBOX_MESSAGE, OUTBOX_MESSAGE.CLAIM_TOKEN.isNotNull()))
        .as("rows still leased")
        .isZero();

    Faults.LedgerReport report = Faults.assertBookedExactlyOnceInOrder(dsl);
    assertThat(report.messages()).isEqualTo(written);
    assertThat(report.bookings()).isEqualTo(written);
    // A relay that lived on can cause copies too, but only by losing a lease (a handler or a
    // mark slower than the lease, on a starved machine); each one says so in its log.
    int leaseLosses = leaseLossesLogged();
    int bound = kills * BATCH_SIZE + leaseLosses;
    System.out.printf(
        "%s process crash: %d messages drained in %d ms by %d relay processes with %d SIGKILLs;"
            + " %d duplicate deliveries dropped by the inbox (bound: %d kills x batch size %d"
            + " + %d messages of leases lost by live relays); bookings per process %s%n",
        kind,
        written,
        drainMillis,
        processes,
        kills,
        report.duplicates(),
        kills,
        BATCH_SIZE,
        leaseLosses,
        Map.copyOf(report.byProcess()));
    assertThat(report.duplicates())
        .as("duplicate deliveries: at most one batch per kill, plus lost leases")
        .isLessThanOrEqualTo(bound);
    ChildJvm.deleteLogs(logs); // kept, and printed above, only when the test fails
  }

  /**
   * Inserts {@code count} more messages round-robin over the aggregates, 1000 rows a statement,
   * with the values a write through {@code Outbox} stores. One statement at a time, so {@code seq}
   * grows with the order of the messages of each aggregate.
   */
  private void writeMessages(DSLContext dsl, int count) {
    Instant now = Instant.now();
    for (int start = 0; start < count; start += 1000) {
      var insert =
          dsl.insertInto(
              OUTBOX_MESSAGE,
              OUTBOX_MESSAGE.ID,
              OUTBOX_MESSAGE.AGGREGATE,
              OUTBOX_MESSAGE.TOPIC,
              OUTBOX_MESSAGE.PAYLOAD,
              OUTBOX_MESSAGE.CREATED_AT,
              OUTBOX_MESSAGE.AVAILABLE_AT,
              OUTBOX_MESSAGE.ATTEMPTS);
      for (int i = start; i < Math.min(count, start + 1000); i++) {
        int n = written + i;
        insert =
            insert.values(
                UUID.randomUUID().toString(),
                "account-" + (n % aggregates),
                Faults.BOOKING_TOPIC,
                JSON.json("{\"n\":" + n + "}"),
                now,
                now,
                0);
      }
      insert.execute();
    }
    written += count;
  }

  private static final Pattern LOST_MARKS = Pattern.compile("outbox relay lost (\\d+) of");

  /**
   * Messages the relays reported delivered under a lease they had lost: marks that came too late
   * ("outbox relay lost N of M messages") and handlers that overran the lease.
   */
  private int leaseLossesLogged() {
    int lost = 0;
    try (Stream<Path> files = Files.list(logs)) {
      for (Path file : files.toList()) {
        for (String line : Files.readAllLines(file)) {
          Matcher marks = LOST_MARKS.matcher(line);
          if (marks.find()) {
            lost += Integer.parseInt(marks.group(1));
          } else if (line.contains("ran past the lease")) {
            lost++;
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return lost;
  }

  private ChildJvm startRelay(int slot, int incarnation) {
    String name = "relay-" + slot + "." + incarnation;
    ChildJvm child =
        ChildJvm.start(
            RelayProcessMain.class,
            logs.resolve(name + ".log"),
            db.dialect().name(),
            kind == TestDatabase.Kind.POSTGRES
                ? db.url() + "&ApplicationName=" + applicationName
                : db.url(),
            name,
            Long.toString(LEASE.toMillis()),
            Integer.toString(BATCH_SIZE),
            Integer.toString(HANDLER_CONCURRENCY));
    children.add(child);
    return child;
  }

  private static long pending(DSLContext dsl) {
    return dsl.fetchCount(
        OUTBOX_MESSAGE, OUTBOX_MESSAGE.SENT_AT.isNull().and(OUTBOX_MESSAGE.DEAD_AT.isNull()));
  }

  private static long millisSince(long nanos) {
    return (System.nanoTime() - nanos) / 1_000_000;
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }
}
