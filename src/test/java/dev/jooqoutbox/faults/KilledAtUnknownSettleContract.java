package dev.jooqoutbox.faults;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.jooqoutbox.Outbox;
import dev.jooqoutbox.relay.OutboxRelay;
import dev.jooqoutbox.schema.tables.records.OutboxMessageRecord;
import dev.jooqoutbox.testing.TestDatabase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jooq.DSLContext;
import org.junit.jupiter.api.Test;

/**
 * A relay process killed after its handler reported the outcome unknown and before the settle that
 * records it reached the database ({@link UnknownThenKilledMain}): the unknown outcome was never
 * stored, so the message stays leased to the dead process until its lease runs out, then is
 * delivered again as a new attempt, ahead of the rest of its aggregate (docs/guarantees.md,
 * "Outcomes").
 */
abstract class KilledAtUnknownSettleContract {

  private static final Duration LEASE = Duration.ofSeconds(2);
  private static final String TOPIC = "payments";

  private final TestDatabase.Kind kind;

  KilledAtUnknownSettleContract(TestDatabase.Kind kind) {
    this.kind = kind;
  }

  @Test
  void theMessageIsDeliveredAgainAfterTheDeadRelaysLease() throws IOException {
    Faults.quietLogs();
    Path log = Files.createTempFile("fault-unknown-", ".log");
    try (TestDatabase db = TestDatabase.migrated(kind)) {
      DSLContext dsl = db.dsl();
      Outbox outbox = Outbox.create(dsl);
      String charge =
          dsl.transactionResult(tx -> outbox.write(tx.dsl(), "card-1", TOPIC, Map.of("n", 1)));
      String next =
          dsl.transactionResult(tx -> outbox.write(tx.dsl(), "card-1", TOPIC, Map.of("n", 2)));

      ChildJvm child =
          ChildJvm.start(
              UnknownThenKilledMain.class,
              log,
              db.dialect().name(),
              db.url(),
              Long.toString(LEASE.toMillis()),
              TOPIC);
      int exit = child.waitFor(120);
      assertThat(exit)
          .as("exit of the relay:\n%s", child.output())
          .isEqualTo(UnknownThenKilledMain.HALTED);
      assertThat(child.output()).contains("UNKNOWN " + charge + " attempt 1").contains("HALT");

      OutboxMessageRecord left = row(dsl, charge);
      assertThat(left.getOutcomeUnknownAt()).as("the unknown outcome was never stored").isNull();
      assertThat(left.getRemoteRef()).isNull();
      assertThat(left.getClaimToken()).as("still leased to the dead relay").isNotNull();
      assertThat(left.getAttempts()).isEqualTo(1);
      // The next message of the aggregate came in the same run and was never given back either.
      assertThat(row(dsl, next).getClaimToken()).isEqualTo(left.getClaimToken());
      assertThat(row(dsl, next).getAttempts()).isEqualTo(1);

      List<String> delivered = new CopyOnWriteArrayList<>();
      List<Integer> attempts = new CopyOnWriteArrayList<>();
      try (OutboxRelay relay =
          OutboxRelay.builder(dsl)
              .listen(false)
              .pollInterval(Duration.ofMillis(50))
              .maxRun(1)
              .handler(
                  TOPIC,
                  m -> {
                    delivered.add(m.id());
                    attempts.add(m.attempt());
                  })
              .build()) {
        relay.start();
        await().atMost(Duration.ofSeconds(60)).until(() -> delivered.size() == 2);
      }
      assertThat(delivered).containsExactly(charge, next);
      assertThat(attempts).containsExactly(2, 2);
      assertThat(row(dsl, charge).getSentAt()).isNotNull();
      assertThat(row(dsl, charge).getOutcomeUnknownAt()).isNull();
    }
    Files.deleteIfExists(log); // kept only when the test fails
  }

  private static OutboxMessageRecord row(DSLContext dsl, String id) {
    return dsl.selectFrom(OUTBOX_MESSAGE).where(OUTBOX_MESSAGE.ID.eq(id)).fetchSingle();
  }
}
