package dev.jooqoutbox.faults;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static dev.jooqoutbox.schema.Tables.OUTBOX_RELAY;
import static dev.jooqoutbox.schema.Tables.OUTBOX_SHARD;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.jooqoutbox.OutboxAdmin;
import dev.jooqoutbox.testing.BulkMessages;
import dev.jooqoutbox.testing.DatabaseFixture;
import dev.jooqoutbox.testing.StoredMessages;
import dev.jooqoutbox.testing.TestDatabase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A relay as its own process (docs/guide.md, "A relay as its own process"): its {@code main} ends
 * in {@code awaitClosed()} after {@code closeOnShutdown(pool)}, so it runs until stopped, and a
 * SIGTERM in the middle of a drain stops it gracefully: it exits, nothing it claimed stays leased,
 * every message it marked sent was booked once, and a second worker delivers the rest, each once,
 * in order per aggregate.
 */
abstract class WorkerShutdownContract extends DatabaseFixture {

  /** The exit code of a JVM ended by SIGTERM after its shutdown hooks ran (128 + 15). */
  private static final int SIGTERMED = 143;

  private static final int MESSAGES = 1_500;

  private Path logs;

  WorkerShutdownContract(TestDatabase.Kind kind) {
    super(kind);
  }

  @BeforeAll
  void setUpOnce() throws IOException {
    Faults.quietLogs();
    Faults.createLedgerTables(db.dsl());
    logs = Files.createTempDirectory("worker-process-");
  }

  @Test
  void aSigtermMidDrainStopsTheWorkerWithNothingLostOrLeased() {
    DSLContext dsl = db.dsl();
    Instant now = Instant.now();
    BulkMessages.insert(
        dsl,
        MESSAGES,
        i ->
            new BulkMessages.Row(
                UUID.randomUUID().toString(),
                "account-" + (i % 50),
                Faults.BOOKING_TOPIC,
                "{\"n\":" + i + "}",
                now));

    ChildJvm worker = startWorker("first.log");
    await().atMost(Duration.ofSeconds(60)).until(() -> worker.printed("ACTIVE"));
    await().atMost(Duration.ofSeconds(60)).until(() -> sent(dsl) >= 200 || !worker.alive());
    assertThat(worker.alive()).as("the worker runs until stopped").isTrue();
    assertThat(Faults.pending(dsl)).as("stopped mid-drain").isPositive();

    worker.terminate();

    assertThat(worker.waitFor(60)).as("exit code after SIGTERM").isEqualTo(SIGTERMED);
    assertThat(dsl.fetchCount(OUTBOX_MESSAGE, OUTBOX_MESSAGE.CLAIM_TOKEN.isNotNull()))
        .as("rows left leased")
        .isZero();
    if (dsl.dialect().family() == SQLDialect.POSTGRES) {
      // The event log leases whole shards, not rows: the stopped worker gave every one back (a
      // shard left to its lease would be a crash to the next relay, its messages come again).
      assertThat(dsl.fetchCount(OUTBOX_SHARD, OUTBOX_SHARD.RELAY_ID.isNotNull()))
          .as("shards left leased")
          .isZero();
      assertThat(dsl.fetchCount(OUTBOX_RELAY)).as("relays still registered").isZero();
    }
    assertThat(OutboxAdmin.create(dsl).deadCount()).isZero();
    long sentBeforeTheStop = sent(dsl);
    assertThat(dsl.fetchCount(Faults.BOOKING)).as("bookings").isEqualTo((int) sentBeforeTheStop);

    ChildJvm second = startWorker("second.log");
    await().atMost(Duration.ofSeconds(120)).until(() -> Faults.pending(dsl) == 0);
    second.terminate();
    assertThat(second.waitFor(60)).isEqualTo(SIGTERMED);
    Faults.LedgerReport report = Faults.assertBookedExactlyOnceInOrder(dsl);
    assertThat(report.bookings()).isEqualTo(MESSAGES);
    assertThat(report.duplicates()).as("copies the inbox dropped").isZero();
  }

  private ChildJvm startWorker(String log) {
    return ChildJvm.start(
        WorkerProcessMain.class, logs.resolve(log), db.dialect().name(), db.url());
  }

  /** Messages sent, wherever stored (on PostgreSQL's event log: behind their shard's position). */
  private static long sent(DSLContext dsl) {
    return StoredMessages.of(dsl).sent();
  }
}
