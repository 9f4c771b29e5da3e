package dev.jooqoutbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.jooqoutbox.relay.OutboxRelay;
import dev.jooqoutbox.testing.MutableClock;
import dev.jooqoutbox.testing.TestDatabase;
import dev.jooqoutbox.testing.TwoEmptyDatabasesPerTest;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Outboxes in a schema (docs/guide.md, "Named outboxes"): the same tables in two schemas of one
 * database, reached through one connection pool, migrate, roll back and run on their own.
 * PostgreSQL and MariaDB only; SQLite's refusal is {@link SqliteSchemaOutboxTest}.
 */
abstract class SchemaOutboxContract extends TwoEmptyDatabasesPerTest {

  private OutboxName inA;
  private OutboxName inB;

  SchemaOutboxContract(TestDatabase.Kind kind) {
    super(kind);
  }

  @BeforeEach
  void namesInBothSchemas() {
    // Two schemas of one server, both reached through db's pool: its own and the other one.
    inA = OutboxName.DEFAULT.inSchema(db.name());
    inB = OutboxName.DEFAULT.inSchema(other.name());
  }

  @Test
  void eachSchemaMigratesAndRollsBackOnItsOwn() {
    OutboxSchema.migrate(db.dataSource(), inB);

    assertThat(OutboxSchema.isMigrated(dsl, inB)).isTrue();
    assertThat(OutboxSchema.isMigrated(dsl, inA)).isFalse();
    assertThat(OutboxSchema.isMigrated(dsl)).isFalse(); // the connection's current schema is A
    assertThat(OutboxSchema.isMigrated(other.dsl())).isTrue();

    OutboxSchema.migrate(db.dataSource(), inA);
    OutboxSchema.migrate(db.dataSource(), inB); // a second run is a no-op
    OutboxSchema.rollback(db.dataSource(), inB, 100);

    assertThat(OutboxSchema.isMigrated(dsl, inB)).isFalse();
    assertThat(OutboxSchema.isMigrated(dsl, inA)).isTrue();
    assertThat(OutboxSchema.isMigrated(dsl)).isTrue();
  }

  @Test
  void twoSchemasWithTheSameTablesNeverSeeEachOthersRows() {
    OutboxName billingA = OutboxName.of("billing").inSchema(db.name());
    OutboxName billingB = OutboxName.of("billing").inSchema(other.name());
    OutboxSchema.migrate(db.dataSource(), billingA);
    OutboxSchema.migrate(db.dataSource(), billingB);
    MutableClock clock = new MutableClock(Instant.parse("2026-03-01T10:00:00Z"));
    Outbox a = Outbox.builder(dsl).clock(clock).name(billingA).build();
    Outbox b = Outbox.builder(dsl).clock(clock).name(billingB).build();
    for (Outbox outbox : List.of(a, b)) {
      dsl.transaction(tx -> outbox.message("acct-1", "t", "{}").id("m-1").write(tx.dsl()));
    }
    dsl.transaction(tx -> a.write(tx.dsl(), "acct-2", "t", "{}"));

    List<String> aSeen = new CopyOnWriteArrayList<>();
    List<String> bSeen = new CopyOnWriteArrayList<>();
    try (OutboxRelay ra = relay(billingA, clock, aSeen);
        OutboxRelay rb = relay(billingB, clock, bSeen)) {
      ra.start();
      rb.start();
      await().atMost(Duration.ofSeconds(30)).until(() -> aSeen.size() == 2);
      await().atMost(Duration.ofSeconds(30)).until(() -> bSeen.size() == 1);
    }
    assertThat(aSeen).containsExactlyInAnyOrder("acct-1", "acct-2");
    assertThat(bSeen).containsExactly("acct-1");

    OutboxAdmin adminA = OutboxAdmin.create(dsl, clock, billingA);
    OutboxAdmin adminB = OutboxAdmin.create(dsl, clock, billingB);
    assertThat(adminA.stats().sentAwaitingPurge()).isEqualTo(2);
    assertThat(adminB.stats().sentAwaitingPurge()).isEqualTo(1);

    Inbox inboxA = new Inbox(clock, billingA);
    Inbox inboxB = new Inbox(clock, billingB);
    assertThat((boolean) dsl.transactionResult(tx -> inboxA.seen(tx.dsl(), "c", "m-1"))).isFalse();
    assertThat((boolean) dsl.transactionResult(tx -> inboxA.seen(tx.dsl(), "c", "m-1"))).isTrue();
    assertThat(inboxB.runOnce(dsl, "c", "m-1", tx -> {})).isTrue();

    clock.advance(Duration.ofDays(1));
    PurgeResult purged = adminA.purge(Duration.ofHours(1));

    assertThat(purged.inboxDeleted()).isEqualTo(1);
    assertThat(rows(other.dsl(), "billing_inbox_message")).isEqualTo(1);
    if (kind == TestDatabase.Kind.POSTGRES) {
      // On PostgreSQL a delivered message stays in its outbox's event log until the purge can
      // empty its whole partition (a range of transactions, every shard read past it): these
      // messages' partition is the one still written to, so the purge deletes none of them. What
      // is checked instead: A's purge deleted nothing of either schema, and
      // each schema's log holds its own messages only.
      assertThat(purged.outboxDeleted()).isZero();
      assertThat(rows(db.dsl(), "billing_outbox_event")).isEqualTo(2);
      assertThat(rows(other.dsl(), "billing_outbox_event")).isEqualTo(1);
      assertThat(adminA.stats().sentAwaitingPurge()).isEqualTo(2);
    } else {
      assertThat(purged.outboxDeleted()).isEqualTo(2);
      assertThat(adminA.stats().sentAwaitingPurge()).isZero();
    }
    assertThat(rows(db.dsl(), "billing_outbox_message")).isZero();
    assertThat(rows(other.dsl(), "billing_outbox_message"))
        .isEqualTo(kind == TestDatabase.Kind.POSTGRES ? 0 : 1);
    assertThat(adminB.stats().sentAwaitingPurge()).isEqualTo(1);
  }

  @Test
  void aMissingSchemaIsNamed() {
    OutboxName missing = OutboxName.DEFAULT.inSchema("no_such_schema_x");
    assertThatThrownBy(() -> OutboxSchema.migrate(db.dataSource(), missing))
        .isInstanceOf(OutboxException.class)
        .hasMessageContaining("schema \"no_such_schema_x\" does not exist");
    assertThatThrownBy(() -> OutboxSchema.isMigrated(dsl, missing))
        .isInstanceOf(OutboxException.class)
        .hasMessageContaining("schema \"no_such_schema_x\" does not exist");
  }

  @Test
  void invalidSchemaNamesAreRefusedWithTheRule() {
    for (String bad :
        List.of("", "Tenant", "1st", "_x", "a-b", "a.b", "x;drop table t", "a".repeat(64))) {
      assertThatThrownBy(() -> OutboxName.DEFAULT.inSchema(bad))
          .as("schema \"%s\"", bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("invalid schema name")
          .hasMessageContaining("lower-case letters (a-z), digits and underscores");
    }
  }

  private OutboxRelay relay(OutboxName name, MutableClock clock, List<String> seen) {
    return OutboxRelay.builder(db.dsl())
        .name(name)
        .clock(clock)
        .listen(false)
        .pollInterval(Duration.ofMillis(20))
        .handler("t", m -> seen.add(m.aggregate()))
        .build();
  }

  private static int rows(DSLContext in, String table) {
    return in.fetchCount(DSL.table(DSL.name(table)));
  }
}
