package dev.jooqoutbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.jooqoutbox.relay.OutboxHandler;
import dev.jooqoutbox.relay.OutboxRelay;
import dev.jooqoutbox.testing.EmptyDatabasePerTest;
import dev.jooqoutbox.testing.MutableClock;
import dev.jooqoutbox.testing.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;

/**
 * Named outboxes (docs/guide.md, "Named outboxes"): two named outboxes and the default one in one
 * database migrate independently and never see each other's messages, relays, purge, stats or inbox
 * records.
 */
abstract class NamedOutboxContract extends EmptyDatabasePerTest {

  private static final OutboxName ALPHA = OutboxName.of("alpha");
  private static final OutboxName BETA = OutboxName.of("beta");

  NamedOutboxContract(TestDatabase.Kind kind) {
    super(kind);
  }

  @Test
  void eachNamedOutboxMigratesAndRollsBackOnItsOwn() {
    // n001, n002, n004 and n005 on every database, n003 (the index by state) and n006 (the event
    // log) on PostgreSQL only.
    int perName = kind == TestDatabase.Kind.POSTGRES ? 6 : 4;
    OutboxSchema.migrate(db.dataSource(), ALPHA);

    assertThat(OutboxSchema.isMigrated(dsl, ALPHA)).isTrue();
    assertThat(OutboxSchema.isMigrated(dsl, BETA)).isFalse();
    assertThat(OutboxSchema.isMigrated(dsl)).isFalse();
    assertThat(changesetsOf(ALPHA)).isEqualTo(perName);

    OutboxSchema.migrate(db.dataSource(), BETA);
    db.migrate();
    int defaults = changesetsOfTheDefaultOutbox();
    OutboxSchema.migrate(db.dataSource(), ALPHA); // a second run is a no-op
    assertThat(changesetsOf(ALPHA)).isEqualTo(perName);

    OutboxSchema.rollback(db.dataSource(), ALPHA, perName);

    assertThat(OutboxSchema.isMigrated(dsl, ALPHA)).isFalse();
    assertThat(changesetsOf(ALPHA)).isZero();
    assertThat(OutboxSchema.isMigrated(dsl, BETA)).isTrue();
    assertThat(changesetsOf(BETA)).isEqualTo(perName);
    assertThat(OutboxSchema.isMigrated(dsl)).isTrue();
    assertThat(changesetsOfTheDefaultOutbox()).isEqualTo(defaults);
  }

  @Test
  void twoNamedOutboxesAndTheDefaultNeverSeeEachOthersRows() {
    OutboxSchema.migrate(db.dataSource(), ALPHA);
    OutboxSchema.migrate(db.dataSource(), BETA);
    db.migrate();
    MutableClock clock = new MutableClock(Instant.parse("2026-03-01T10:00:00Z"));
    DSLContext quiet = db.dsl();
    Outbox alpha = Outbox.builder(quiet).clock(clock).name(ALPHA).build();
    Outbox beta = Outbox.builder(quiet).clock(clock).name(BETA).build();
    Outbox plain = Outbox.builder(quiet).clock(clock).build();
    // The same id in each: every outbox has its own unique key.
    for (Outbox outbox : List.of(alpha, beta, plain)) {
      quiet.transaction(tx -> outbox.message("acct-1", "t", "{}").id("m-1").write(tx.dsl()));
    }
    quiet.transaction(tx -> alpha.write(tx.dsl(), "acct-2", "t", "{\"n\":2}"));

    List<String> alphaSeen = new CopyOnWriteArrayList<>();
    List<String> betaSeen = new CopyOnWriteArrayList<>();
    try (OutboxRelay a = relay(ALPHA, clock, m -> alphaSeen.add(m.aggregate()));
        OutboxRelay b = relay(BETA, clock, m -> betaSeen.add(m.aggregate()))) {
      a.start();
      b.start();
      await().atMost(Duration.ofSeconds(30)).until(() -> alphaSeen.size() == 2);
      await().atMost(Duration.ofSeconds(30)).until(() -> betaSeen.size() == 1);
    }
    assertThat(alphaSeen).containsExactlyInAnyOrder("acct-1", "acct-2");
    assertThat(betaSeen).containsExactly("acct-1");

    OutboxAdmin alphaAdmin = OutboxAdmin.create(quiet, clock, ALPHA);
    OutboxAdmin betaAdmin = OutboxAdmin.create(quiet, clock, BETA);
    OutboxAdmin plainAdmin = OutboxAdmin.create(quiet, clock);
    assertThat(alphaAdmin.stats().sentAwaitingPurge()).isEqualTo(2);
    assertThat(betaAdmin.stats().sentAwaitingPurge()).isEqualTo(1);
    assertThat(plainAdmin.stats().pending()).isEqualTo(1); // no relay of the default ran

    Inbox alphaInbox = new Inbox(clock, ALPHA);
    Inbox betaInbox = new Inbox(clock, BETA);
    Inbox plainInbox = new Inbox(clock);
    assertThat((boolean) quiet.transactionResult(tx -> alphaInbox.seen(tx.dsl(), "c", "m-1")))
        .isFalse();
    assertThat((boolean) quiet.transactionResult(tx -> alphaInbox.seen(tx.dsl(), "c", "m-1")))
        .isTrue();
    assertThat((boolean) quiet.transactionResult(tx -> betaInbox.seen(tx.dsl(), "c", "m-1")))
        .isFalse();
    assertThat(betaInbox.runOnce(quiet, "d", "m-1", tx -> {})).isTrue();
    assertThat(plainInbox.runOnce(quiet, "d", "m-1", tx -> {})).isTrue();

    clock.advance(Duration.ofDays(1));
    PurgeResult purged = alphaAdmin.purge(Duration.ofHours(1));

    assertThat(purged.inboxDeleted()).isEqualTo(1);
    assertThat(rows(BETA.inboxTable())).isEqualTo(2);
    assertThat(rows("inbox_message")).isEqualTo(1);
    if (kind == TestDatabase.Kind.POSTGRES) {
      // On PostgreSQL a delivered message stays in its outbox's event log until the purge can
      // empty its whole partition (a range of transactions, every shard read past it): these
      // messages' partition is the one still written to, so the purge deletes none of them. What
      // is checked instead: alpha's purge deleted nothing of any outbox, and
      // each outbox's log holds its own messages only.
      assertThat(purged.outboxDeleted()).isZero();
      assertThat(rows(ALPHA.name() + "_outbox_event")).isEqualTo(2);
      assertThat(rows(BETA.name() + "_outbox_event")).isEqualTo(1);
      assertThat(rows("outbox_event")).isEqualTo(1);
      assertThat(alphaAdmin.stats().sentAwaitingPurge()).isEqualTo(2);
    } else {
      assertThat(purged.outboxDeleted()).isEqualTo(2);
      assertThat(alphaAdmin.stats().sentAwaitingPurge()).isZero();
    }
    // Every outbox's messages are where a write puts them; alpha's purge left the others alone.
    assertThat(rows(ALPHA.outboxTable())).isZero();
    assertThat(rows(BETA.outboxTable())).isEqualTo(kind == TestDatabase.Kind.POSTGRES ? 0 : 1);
    assertThat(rows("outbox_message")).isEqualTo(kind == TestDatabase.Kind.POSTGRES ? 0 : 1);
    assertThat(betaAdmin.stats().sentAwaitingPurge()).isEqualTo(1);
    assertThat(plainAdmin.stats().pending()).isEqualTo(1);
    assertThat(plainAdmin.message("m-1")).map(MessageState::aggregate).contains("acct-1");
  }

  /** A topic paused in one outbox is paused there only: its relays hold it, the others' do not. */
  @Test
  void aTopicPausedInOneOutboxIsPausedThereOnly() {
    OutboxSchema.migrate(db.dataSource(), ALPHA);
    db.migrate();
    MutableClock clock = new MutableClock(Instant.parse("2026-03-01T10:00:00Z"));
    DSLContext quiet = db.dsl();
    Outbox alpha = Outbox.builder(quiet).clock(clock).name(ALPHA).build();
    Outbox plain = Outbox.builder(quiet).clock(clock).build();
    OutboxAdmin alphaAdmin = OutboxAdmin.create(quiet, clock, ALPHA);
    assertThat(alphaAdmin.pause("t")).isTrue();
    assertThat(OutboxAdmin.create(quiet, clock).pausedTopics()).isEmpty();
    assertThat(rows(ALPHA.pausedTopicTable())).isOne();
    for (Outbox outbox : List.of(alpha, plain)) {
      quiet.transaction(tx -> outbox.write(tx.dsl(), "acct-1", "t", "{}"));
    }

    List<String> alphaSeen = new CopyOnWriteArrayList<>();
    List<String> plainSeen = new CopyOnWriteArrayList<>();
    try (OutboxRelay a = relay(ALPHA, clock, m -> alphaSeen.add(m.aggregate()));
        OutboxRelay p = relay(OutboxName.DEFAULT, clock, m -> plainSeen.add(m.aggregate()))) {
      assertThat(p.drainOnce(10)).isOne();
      assertThat(a.drainOnce(10)).as("paused in alpha").isZero();
    }
    assertThat(alphaAdmin.resume("t")).isTrue();
    try (OutboxRelay a = relay(ALPHA, clock, m -> alphaSeen.add(m.aggregate()))) {
      assertThat(a.drainOnce(10)).isOne();
    }
    assertThat(alphaSeen).containsExactly("acct-1");
  }

  /** A named inbox and admin need no clock: the UTC system clock, as for the default outbox. */
  @Test
  void aNamedInboxAndAdminAreMadeFromTheNameAlone() {
    OutboxSchema.migrate(db.dataSource(), ALPHA);
    db.migrate();
    DSLContext quiet = db.dsl();
    Outbox alpha = Outbox.builder(quiet).name(ALPHA).build();
    quiet.transaction(tx -> alpha.write(tx.dsl(), "acct-1", "t", "{}"));

    OutboxAdmin admin = OutboxAdmin.create(quiet, ALPHA);
    assertThat(admin.pendingCount()).isOne();
    assertThat(admin.oldestPendingAge()).isLessThan(Duration.ofMinutes(1));
    assertThat(OutboxAdmin.create(quiet).pendingCount()).as("the default outbox").isZero();

    Inbox inbox = new Inbox(ALPHA);
    assertThat((boolean) quiet.transactionResult(tx -> inbox.seen(tx.dsl(), "c", "m-1"))).isFalse();
    assertThat((boolean) quiet.transactionResult(tx -> inbox.seen(tx.dsl(), "c", "m-1"))).isTrue();
    assertThat(rows(ALPHA.inboxTable())).isOne();
    assertThat(rows("inbox_message")).isZero();
    // Recorded now on the system clock: a purge of an hour's retention keeps it.
    assertThat(admin.purge(Duration.ofHours(1)).inboxDeleted()).isZero();
  }

  /**
   * A committed write wakes its own outbox's relay long before its 60 s poll: in this JVM through
   * the transaction listener, and on PostgreSQL also through the outbox's own NOTIFY channel (the
   * second relay listens; the write's transaction has no listener, so it notifies inside).
   */
  @Test
  void aCommittedWriteWakesTheRelaysOfItsOwnOutbox() {
    OutboxSchema.migrate(db.dataSource(), ALPHA);
    OutboxSchema.migrate(db.dataSource(), BETA);
    DSLContext listening =
        DSL.using(dsl.configuration().deriveAppending(Outbox.transactionListener()));
    Outbox alpha = Outbox.builder(listening).name(ALPHA).build();
    Outbox beta = Outbox.builder(dsl).name(BETA).build();
    List<String> alphaSeen = new CopyOnWriteArrayList<>();
    List<String> betaSeen = new CopyOnWriteArrayList<>();
    listening.transaction(tx -> alpha.write(tx.dsl(), "warm", "t", "{}"));
    dsl.transaction(tx -> beta.write(tx.dsl(), "warm", "t", "{}"));
    try (OutboxRelay a = slowRelay(ALPHA, alphaSeen);
        OutboxRelay b = slowRelay(BETA, betaSeen)) {
      a.start();
      b.start();
      await().atMost(Duration.ofSeconds(30)).until(() -> alphaSeen.size() == 1);
      await().atMost(Duration.ofSeconds(30)).until(() -> betaSeen.size() == 1);

      listening.transaction(tx -> alpha.write(tx.dsl(), "hot", "t", "{}"));
      await().atMost(Duration.ofSeconds(30)).until(() -> alphaSeen.size() == 2);
      if (kind == TestDatabase.Kind.POSTGRES) {
        dsl.transaction(tx -> beta.write(tx.dsl(), "hot", "t", "{}"));
        await().atMost(Duration.ofSeconds(30)).until(() -> betaSeen.size() == 2);
      }
    }
    assertThat(alphaSeen).containsExactly("warm", "hot");
  }

  private OutboxRelay slowRelay(OutboxName name, List<String> seen) {
    return OutboxRelay.builder(db.dsl())
        .name(name)
        .pollInterval(Duration.ofSeconds(60))
        .handler("t", m -> seen.add(m.aggregate()))
        .build();
  }

  @Test
  void invalidNamesAreRefusedWithTheRule() {
    for (String bad :
        List.of("", "Billing", "1st", "_x", "a-b", "a b", "x;drop table t", "a".repeat(28))) {
      assertThatThrownBy(() -> OutboxName.of(bad))
          .as("name \"%s\"", bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("invalid outbox name")
          .hasMessageContaining("lower-case letters (a-z), digits and underscores");
    }
    OutboxName longest = OutboxName.of("a".repeat(OutboxName.MAX_LENGTH));
    OutboxSchema.migrate(db.dataSource(), longest);
    assertThat(OutboxSchema.isMigrated(dsl, longest)).isTrue();
  }

  private OutboxRelay relay(OutboxName name, MutableClock clock, OutboxHandler handler) {
    return OutboxRelay.builder(db.dsl())
        .name(name)
        .clock(clock)
        .listen(false)
        .pollInterval(Duration.ofMillis(20))
        .handler("t", handler)
        .build();
  }

  private int rows(String table) {
    return dsl.fetchCount(DSL.table(DSL.name(table)));
  }

  /** The applied changesets of {@code name}: their ids end with "-NAME". */
  private int changesetsOf(OutboxName name) {
    return changesets(
        column("filename").like("jooq-outbox/named/%").and(column("id").like("%-" + name.name())));
  }

  private int changesetsOfTheDefaultOutbox() {
    return changesets(column("filename").like("jooq-outbox/0%"));
  }

  private int changesets(org.jooq.Condition condition) {
    // Liquibase spells the table in upper case; PostgreSQL folds the unquoted name, SQLite ignores
    // the case, MariaDB's table names are case-sensitive.
    String table = kind == TestDatabase.Kind.MARIADB ? "DATABASECHANGELOG" : "databasechangelog";
    return dsl.fetchCount(DSL.table(DSL.unquotedName(table)), condition);
  }

  private static org.jooq.Field<String> column(String name) {
    return DSL.field(DSL.unquotedName(name), String.class);
  }
}
