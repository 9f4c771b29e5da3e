package dev.jooqoutbox.faults;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.jooqoutbox.testing.BulkMessages;
import dev.jooqoutbox.testing.DatabaseFixture;
import dev.jooqoutbox.testing.TestDatabase;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Relays in separate JVMs drain a backlog into the inbox-guarded ledger while the test kills them
 * with SIGKILL at random moments and starts them again. Afterwards every message is booked exactly
 * once, in {@code seq} order per aggregate, and nothing is pending, leased or dead.
 *
 * <p>Each kill is checked to have landed: the process is gone (exit code 137), and the rows it held
 * claimed but unsettled at that moment are recorded. Those rows are delivered later by the other
 * relays, once their lease has run out, and they are the only source of copies: every copy the
 * inbox dropped is one of them, and there are at most one batch of them per kill (a relay holds one
 * batch at a time). Some kill must have caught a batch in flight, and the copies show it caught
 * handlers that had already booked.
 *
 * <p>The backlog is inserted in bulk before the relays start (writing is not under test here, and
 * 20,000 single writes would take most of the time budget on a busy CI machine). Should the relays
 * catch up before the last kill, the test tops the backlog up, so every kill lands mid-drain; the
 * message count printed is the total. The random seed is printed; rerun one with {@code
 * -Dfaults.seed=...}.
 */
abstract class ProcessCrashContract extends DatabaseFixture {

  /**
   * Long enough that a live relay does not lose a lease on a starved CI machine (a live relay's
   * copies would not be any kill's), short enough that a killed relay's batch comes back soon.
   */
  static final Duration LEASE = Duration.ofSeconds(5);

  static final int BATCH_SIZE = 50;
  static final int HANDLER_CONCURRENCY = 2;
  static final int MIN_KILLS = 6;

  /** The messages booked and not yet settled the kills must catch, over all of them. */
  static final int MIN_BOOKED_AT_KILLS = 3;

  private final int processes;
  private final int messages;
  private final int aggregates;
  private Path logs;
  private final List<ChildJvm> children = new ArrayList<>();
  private int written;
  private final String applicationName = "fault-crash-" + UUID.randomUUID();

  ProcessCrashContract(TestDatabase.Kind kind, int processes, int messages, int aggregates) {
    super(kind);
    this.processes = processes;
    this.messages = messages;
    this.aggregates = aggregates;
  }

  @BeforeAll
  void setUpOnce() throws IOException {
    Faults.quietLogs();
    Faults.createLedgerTables(db.dsl());
    logs = Files.createTempDirectory("fault-relays-");
  }

  @AfterAll
  void tearDownOnce() {
    children.forEach(ChildJvm::kill);
    if (kind == TestDatabase.Kind.POSTGRES) {
      // A killed relay's statement can run on in its backend until it next talks to the client.
      db.dsl()
          .fetch(
              "select pg_terminate_backend(pid) from pg_stat_activity where application_name = ?",
              applicationName);
    }
  }

  /**
   * What one SIGKILL hit: the process, the message ids it held claimed but unsettled, and how many
   * of those its handlers had booked (each comes again after the lease: a copy for the inbox).
   */
  private record Kill(
      String process, long atMillis, long pending, Set<String> inFlight, Set<String> booked) {
    @Override
    public String toString() {
      return process
          + " at "
          + atMillis
          + " ms, pending "
          + pending
          + ", in flight "
          + inFlight.size()
          + ", of them booked "
          + booked.size();
    }
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
    String[] names = new String[processes];
    int[] incarnations = new int[processes];
    for (int i = 0; i < processes; i++) {
      names[i] = processName(i, incarnations[i]++);
      slots[i] = startRelay(names[i]);
    }

    List<Kill> kills = new ArrayList<>();
    long killDeadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    // At least MIN_KILLS, and on until they caught handlers that had booked a few messages not yet
    // settled: whether a kill lands in that window is chance, and without one the inbox has
    // nothing to drop. A few, not one: a settle the killed relay sent just before it died may
    // still commit in its backend after the kill, and that message then comes no more.
    while ((kills.size() < MIN_KILLS || bookedAtKills(kills) < MIN_BOOKED_AT_KILLS)
        && System.nanoTime() < killDeadline) {
      Faults.sleep(200 + random.nextInt(600));
      long pending = Faults.pending(dsl);
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
      long victimPid = slots[victim].pid();
      assertThat(slots[victim].kill())
          .as("exit code of %s after SIGKILL", names[victim])
          .isEqualTo(ChildJvm.SIGKILLED);
      // Its claims cannot change any more; others take them over only after the lease.
      Set<String> held = heldBy(dsl, names[victim], victimPid);
      kills.add(
          new Kill(
              names[victim],
              millisSince(drainStart),
              Faults.pending(dsl),
              held,
              booked(dsl, held)));
      names[victim] = processName(victim, incarnations[victim]++);
      slots[victim] = startRelay(names[victim]);
    }
    System.out.println("SIGKILLs: " + kills);
    assertThat(kills).as("kills of working relays").hasSizeGreaterThanOrEqualTo(MIN_KILLS);

    try {
      await("the drain after the last kill")
          .atMost(Duration.ofSeconds(150))
          .pollInterval(Duration.ofMillis(250))
          .until(() -> Faults.pending(dsl) == 0);
    } catch (RuntimeException e) {
      StringBuilder tails = new StringBuilder();
      for (ChildJvm child : slots) {
        tails.append("\n--- relay log:\n").append(child.tail(30));
      }
      throw new AssertionError("still pending: " + Faults.pending(dsl) + tails, e);
    }
    long drainMillis = millisSince(drainStart);
    // Nothing is owed while the relays still run: no row leased, none dead.
    assertThat(dsl.fetchCount(OUTBOX_MESSAGE, OUTBOX_MESSAGE.CLAIM_TOKEN.isNotNull()))
        .as("rows still leased")
        .isZero();
    assertThat(dsl.fetchCount(OUTBOX_MESSAGE, OUTBOX_MESSAGE.DEAD_AT.isNotNull()))
        .as("dead letters")
        .isZero();
    for (int i = 0; i < processes; i++) {
      assertThat(slots[i].kill()).as("exit code of %s", names[i]).isEqualTo(ChildJvm.SIGKILLED);
    }

    Faults.LedgerReport report = Faults.assertBookedExactlyOnceInOrder(dsl);
    assertThat(report.messages()).isEqualTo(written);
    assertThat(report.bookings()).isEqualTo(written);
    Set<String> heldAtKills = new HashSet<>();
    kills.forEach(kill -> heldAtKills.addAll(kill.inFlight()));
    List<String> copies =
        dsl.select(Faults.MESSAGE_ID).from(Faults.DUPLICATE).fetch(Faults.MESSAGE_ID);
    int bound = kills.size() * BATCH_SIZE;
    System.out.printf(
        "%s process crash: %d messages drained in %d ms by %d relay processes with %d SIGKILLs,"
            + " which held %d messages claimed; %d duplicate deliveries dropped by the inbox"
            + " (bound: %d kills x batch size %d); %d messages of leases lost by live relays;"
            + " bookings per process %s%n",
        kind,
        written,
        drainMillis,
        processes,
        kills.size(),
        heldAtKills.size(),
        report.duplicates(),
        kills.size(),
        BATCH_SIZE,
        leaseLossesLogged(),
        Map.copyOf(report.byProcess()));
    assertThat(kills)
        .as("kills that caught a claimed batch in flight")
        .anyMatch(kill -> !kill.inFlight().isEmpty());
    if (kind != TestDatabase.Kind.POSTGRES) {
      // PostgreSQL's event log reads ahead of what it hands out: what a killed relay held there is
      // what it may have handed out since its shards' positions were last written (below).
      assertThat(kills)
          .as("a relay holds one batch at a time")
          .allMatch(kill -> kill.inFlight().size() <= BATCH_SIZE);
    }
    assertThat(heldAtKills)
        .as("every copy is of a message a killed relay held")
        .containsAll(copies);
    assertThat(report.duplicates())
        .as("duplicate deliveries: at most what the killed relays held")
        .isLessThanOrEqualTo(kind == TestDatabase.Kind.POSTGRES ? heldAtKills.size() : bound)
        .as("duplicate deliveries: some kill caught handlers that had booked")
        .isPositive();
    ChildJvm.deleteLogs(logs); // kept, and printed above, only when the test fails
  }

  private static long bookedAtKills(List<Kill> kills) {
    return kills.stream().flatMap(k -> k.booked().stream()).distinct().count();
  }

  /** Those of {@code ids} the ledger booked. */
  private static Set<String> booked(DSLContext dsl, Set<String> ids) {
    return ids.isEmpty()
        ? Set.of()
        : new HashSet<>(
            dsl.select(Faults.MESSAGE_ID)
                .from(Faults.BOOKING)
                .where(Faults.MESSAGE_ID.in(ids))
                .fetch(Faults.MESSAGE_ID));
  }

  /**
   * The ids of the messages {@code process} (of {@code pid}) holds claimed and not yet settled: its
   * rows, and on PostgreSQL the messages of the event log in the shards it leased, past their
   * written positions, up to the mark it wrote (what it may have handed out).
   */
  private static Set<String> heldBy(DSLContext dsl, String process, long pid) {
    Set<String> held = new HashSet<>(rowsHeldBy(dsl, process));
    if (dsl.dialect().family() == SQLDialect.POSTGRES) {
      held.addAll(
          dsl.resultQuery(
                  // Plain SQL in a test: the shard's position is a snapshot PostgreSQL compares.
                  "select e.id from outbox_event e join outbox_shard s on s.shard = e.shard"
                      + " join outbox_relay r on r.relay_id = s.relay_id where r.pid = ?"
                      + " and e.seq <= s.read_mark"
                      + " and not txid_visible_in_snapshot(e.txid, cast(s.lower_snapshot as"
                      + " txid_snapshot))",
                  pid)
              .fetch(0, String.class));
    }
    return held;
  }

  private static Set<String> rowsHeldBy(DSLContext dsl, String process) {
    return new HashSet<>(
        dsl.select(OUTBOX_MESSAGE.ID)
            .from(OUTBOX_MESSAGE)
            .where(OUTBOX_MESSAGE.CLAIM_TOKEN.like(process + "#%"))
            .and(OUTBOX_MESSAGE.SENT_AT.isNull())
            .and(OUTBOX_MESSAGE.DEAD_AT.isNull())
            .fetch(OUTBOX_MESSAGE.ID));
  }

  private static String processName(int slot, int incarnation) {
    return "relay-" + slot + "." + incarnation;
  }

  /**
   * Inserts {@code count} more messages round-robin over the aggregates, 1000 rows a statement,
   * with the values a write through {@code Outbox} stores. One statement at a time, so {@code seq}
   * grows with the order of the messages of each aggregate.
   */
  private void writeMessages(DSLContext dsl, int count) {
    Instant now = Instant.now();
    int first = written;
    BulkMessages.insert(
        dsl,
        count,
        i ->
            new BulkMessages.Row(
                UUID.randomUUID().toString(),
                "account-" + ((first + i) % aggregates),
                Faults.BOOKING_TOPIC,
                "{\"n\":" + (first + i) + "}",
                now));
    written += count;
  }

  private static final Pattern LOST_MARKS = Pattern.compile("outbox relay lost (\\d+) of");

  /**
   * Messages the relays reported delivered under a lease they had lost: marks that came too late
   * ("outbox relay lost N of M messages") and handlers that overran the lease. Printed, not allowed
   * for: with {@link #LEASE} a live relay should lose none.
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

  private ChildJvm startRelay(String name) {
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

  private static long millisSince(long nanos) {
    return (System.nanoTime() - nanos) / 1_000_000;
  }
}
