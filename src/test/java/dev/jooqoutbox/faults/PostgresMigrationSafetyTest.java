package dev.jooqoutbox.faults;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.jooq.impl.DSL.count;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.table;

import dev.jooqoutbox.Inbox;
import dev.jooqoutbox.Outbox;
import dev.jooqoutbox.OutboxAdmin;
import dev.jooqoutbox.OutboxSchema;
import dev.jooqoutbox.internal.repository.JooqOutboxRepository;
import dev.jooqoutbox.internal.repository.NewMessage;
import dev.jooqoutbox.relay.OutboxRelay;
import dev.jooqoutbox.testing.ReleasedSchema;
import dev.jooqoutbox.testing.RowWriter;
import dev.jooqoutbox.testing.TestChangelogs;
import dev.jooqoutbox.testing.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jooq.DSLContext;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Liquibase migration under the conditions CI and deployments create: two processes running the
 * update at the same moment on a fresh schema, and an upgrade from an older changeset set while
 * messages wait in the outbox.
 */
class PostgresMigrationSafetyTest {

  private static final List<String> CHANGESETS =
      List.of(
          "001-outbox-message-postgresql",
          "002-inbox-message-postgresql",
          "003-outbox-message-indexes-postgresql",
          "005-outcome-unknown-postgresql",
          "006-pending-index-order-postgresql",
          "007-parked-at-postgresql",
          "008-paused-topic-postgresql",
          "009-event-log-postgresql");

  private static final Set<String> INDEXES =
      Set.of(
          "pk_outbox_message",
          "uk_outbox_message_id",
          "pk_inbox_message",
          "ix_inbox_message_seen_at",
          "ix_outbox_message_pending",
          "ix_outbox_message_aggregate_pending",
          "ix_outbox_message_dead",
          "ix_outbox_message_unknown",
          "pk_outbox_paused_topic",
          // The event log (009), which also drops 007's index of parked rows.
          "pk_outbox_event_key",
          "ix_outbox_event_read",
          "pk_outbox_shard",
          "pk_outbox_relay");

  @BeforeAll
  static void quietLogs() {
    Faults.quietLogs();
  }

  @Test
  void twoProcessesMigratingAtOnceBothSucceedAndApplyEachChangesetOnce() throws Exception {
    Path dir = Files.createTempDirectory("fault-migrate-");
    for (int round = 0; round < 2; round++) {
      try (TestDatabase db = TestDatabase.empty(TestDatabase.Kind.POSTGRES)) {
        Path go = dir.resolve("go-" + round);
        ChildJvm first =
            ChildJvm.start(
                MigrateProcessMain.class, dir.resolve(round + "-a.log"), db.url(), go.toString());
        ChildJvm second =
            ChildJvm.start(
                MigrateProcessMain.class, dir.resolve(round + "-b.log"), db.url(), go.toString());
        await("both migrators ready")
            .atMost(Duration.ofSeconds(60))
            .until(() -> first.printed("WAITING") && second.printed("WAITING"));
        Files.createFile(go);

        assertThat(first.waitFor(60)).as("exit of the first:\n%s", first.tail(30)).isZero();
        assertThat(second.waitFor(60)).as("exit of the second:\n%s", second.tail(30)).isZero();
        assertThat(first.output()).contains("MIGRATED");
        assertThat(second.output()).contains("MIGRATED");

        DSLContext dsl = db.dsl();
        var applied =
            dsl.select(field(name("id"), String.class), count())
                .from(table(name("databasechangelog")))
                .groupBy(field(name("id")))
                .fetch();
        assertThat(applied.getValues(0, String.class))
            .as("changesets applied")
            .containsExactlyInAnyOrderElementsOf(CHANGESETS);
        assertThat(applied.getValues(1, Integer.class)).as("times applied").containsOnly(1);
        assertThat(dsl.fetchValue("select count(*) from databasechangeloglock where locked"))
            .as("Liquibase lock released")
            .isEqualTo(0L);
        assertSchemaWorks(db);
      }
    }
    ChildJvm.deleteLogs(dir); // kept only when the test fails
  }

  @Test
  void upgradeFromTheFirstChangesetsKeepsWaitingMessagesDeliverable() throws Exception {
    try (TestDatabase db = TestDatabase.empty(TestDatabase.Kind.POSTGRES)) {
      DSLContext dsl = db.dsl();
      // The first released set: the outbox and inbox tables, without the indexes of 003.
      TestChangelogs.updateCount(db.dataSource(), OutboxSchema.CHANGELOG, 2);
      assertThat(appliedChangesets(dsl)).containsExactly(CHANGESETS.get(0), CHANGESETS.get(1));
      assertThat(indexes(dsl)).doesNotContain("ix_outbox_message_pending");

      // Written as that release wrote them: rows of outbox_message (this release's Outbox.write
      // appends to the event log of 009 on PostgreSQL, which that schema does not have).
      JooqOutboxRepository repository = new JooqOutboxRepository(dsl);
      for (int n = 0; n < 30; n++) {
        String aggregate = "agg-" + (n % 3);
        String payload = "{\"n\":" + n + "}";
        Instant now = Instant.now();
        dsl.transaction(
            tx ->
                repository.insert(
                    tx.dsl(),
                    new NewMessage(
                        UUID.randomUUID().toString(),
                        aggregate,
                        "upgrade.topic",
                        payload,
                        Map.of(),
                        now,
                        now)));
      }
      // Some sent, one dead, the rest pending, as an upgrade finds them.
      // Leased with the columns of that schema: the repository's claim reads later ones.
      Instant until = Instant.now().plus(Duration.ofMinutes(1));
      long sent0 = ReleasedSchema.leaseOldest(dsl, "agg-0", "old", until);
      long sent1 = ReleasedSchema.leaseOldest(dsl, "agg-1", "old", until);
      long dead = ReleasedSchema.leaseOldest(dsl, "agg-2", "old", until);
      repository.markSent("old", List.of(sent0, sent1), Instant.now());
      repository.deadLetter("old", dead, "before the upgrade", Instant.now());
      var columns = ReleasedSchema.outboxColumnsBefore005();
      var before = dsl.select(columns).from(OUTBOX_MESSAGE).orderBy(OUTBOX_MESSAGE.SEQ).fetch();

      OutboxSchema.migrate(db.dataSource()); // the rest

      assertThat(appliedChangesets(dsl)).containsExactlyElementsOf(CHANGESETS);
      assertThat(indexes(dsl)).containsAll(INDEXES).doesNotContain("ix_outbox_message_parked");
      assertThat(dsl.select(columns).from(OUTBOX_MESSAGE).orderBy(OUTBOX_MESSAGE.SEQ).fetch())
          .as("rows survive the upgrade unchanged")
          .isEqualTo(before);

      // Written after the upgrade, one per aggregate: to the event log, behind the waiting rows.
      Outbox outbox = Outbox.create(dsl);
      for (int n = 30; n < 33; n++) {
        int k = n;
        dsl.transaction(
            tx -> outbox.write(tx.dsl(), "agg-" + (k % 3), "upgrade.topic", Map.of("n", k)));
      }

      // The waiting messages are delivered, in order per aggregate, and the new ones after them;
      // the dead letter waits.
      Faults.createLedgerTables(dsl);
      Inbox inbox = new Inbox();
      try (OutboxRelay relay =
          OutboxRelay.builder(dsl)
              .handler("upgrade.topic", m -> Faults.book(dsl, inbox, m, "upgraded"))
              .listen(false)
              .build()) {
        int delivered = 0;
        for (int round = 0; round < 20; round++) {
          delivered += relay.drainOnce(100); // a round takes the head of each aggregate
        }
        assertThat(delivered).isEqualTo(27 + 3);
      }
      var bookings =
          dsl.select(Faults.AGGREGATE, Faults.SEQ)
              .from(Faults.BOOKING)
              .orderBy(Faults.BOOKING_NO)
              .fetch();
      assertThat(bookings).hasSize(27 + 3);
      for (String aggregate : List.of("agg-0", "agg-1", "agg-2")) {
        List<Long> seqs =
            bookings.stream()
                .filter(r -> r.value1().equals(aggregate))
                .map(r -> r.value2())
                .toList();
        assertThat(seqs).as("bookings of %s", aggregate).isSorted();
      }
      assertThat(OutboxAdmin.create(dsl).deadCount()).isEqualTo(1);
      assertThat(OutboxAdmin.create(dsl).pendingCount()).isZero();
    }
  }

  /** Writes, claims and settles through the migrated schema: its columns and keys are usable. */
  private static void assertSchemaWorks(TestDatabase db) {
    DSLContext dsl = db.dsl();
    assertThat(OutboxSchema.isMigrated(dsl)).isTrue();
    assertThat(indexes(dsl)).containsAll(INDEXES);
    // The row-state store: a row claimed and settled by the repository itself.
    long seq = new RowWriter(dsl, Clock.systemUTC()).write("a", "migrated", Map.of("ok", 1));
    JooqOutboxRepository repository = new JooqOutboxRepository(dsl);
    var claimed =
        repository.claim(Set.of("migrated"), 10, Duration.ofSeconds(5), "token", Instant.now());
    assertThat(claimed).extracting(m -> m.seq()).containsExactly(seq);
    assertThat(repository.markSent("token", List.of(seq), Instant.now())).isEqualTo(1);
    // What Outbox writes (on PostgreSQL: the event log of 009), delivered by a relay.
    Outbox outbox = Outbox.create(dsl);
    String id = dsl.transactionResult(tx -> outbox.write(tx.dsl(), "a", "migrated", "{\"ok\":2}"));
    List<String> delivered = new CopyOnWriteArrayList<>();
    try (OutboxRelay relay =
        OutboxRelay.builder(dsl)
            .handler("migrated", m -> delivered.add(m.id()))
            .listen(false)
            .build()) {
      relay.drainOnce(10);
    }
    assertThat(delivered).containsExactly(id);
    assertThat(OutboxAdmin.create(dsl).pendingCount()).isZero();
    boolean seen = dsl.transactionResult(tx -> new Inbox().seen(tx.dsl(), "c", id));
    assertThat(seen).isFalse();
  }

  private static List<String> appliedChangesets(DSLContext dsl) {
    return dsl.select(field(name("id"), String.class))
        .from(table(name("databasechangelog")))
        .orderBy(field(name("orderexecuted")))
        .fetch(field(name("id"), String.class));
  }

  private static List<String> indexes(DSLContext dsl) {
    return dsl
        .fetchValues("select indexname from pg_indexes where schemaname = current_schema()")
        .stream()
        .map(String::valueOf)
        .toList();
  }
}
