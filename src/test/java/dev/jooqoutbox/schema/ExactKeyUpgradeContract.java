package dev.jooqoutbox.schema;

import static dev.jooqoutbox.schema.Tables.INBOX_MESSAGE;
import static dev.jooqoutbox.schema.Tables.OUTBOX_EVENT;
import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.jooqoutbox.Inbox;
import dev.jooqoutbox.Outbox;
import dev.jooqoutbox.OutboxSchema;
import dev.jooqoutbox.internal.repository.JooqOutboxRepository;
import dev.jooqoutbox.internal.repository.NewMessage;
import dev.jooqoutbox.testing.EmptyDatabasePerTest;
import dev.jooqoutbox.testing.MutableClock;
import dev.jooqoutbox.testing.ReleasedSchema;
import dev.jooqoutbox.testing.StoredMessages;
import dev.jooqoutbox.testing.TestChangelogs;
import dev.jooqoutbox.testing.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.jooq.Record;
import org.jooq.Result;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;

/**
 * An upgrade from the changelog released before {@code 004-exact-key-collation}: a database holding
 * sent, dead, leased and pending messages and inbox rows, with keys that differ by trailing spaces,
 * case and normalization wherever the old schema allowed them, is migrated to the latest changelog.
 * Every row survives unchanged, and keys then compare exactly.
 */
abstract class ExactKeyUpgradeContract extends EmptyDatabasePerTest {

  /** The changelog of the release before 004, on the test class path. */
  static final String RELEASED_CHANGELOG = "dev/jooqoutbox/schema/released-001-003.xml";

  static final Instant T = Instant.parse("2026-05-01T08:00:00Z");

  ExactKeyUpgradeContract(TestDatabase.Kind kind) {
    super(kind);
  }

  /**
   * The changesets of this dialect applied after the released ones: 004 changes only MariaDB's keys
   * (PostgreSQL and SQLite compared exactly already); 005 adds the outcome columns everywhere; 006
   * adds PostgreSQL's index by state; 007 the column parked_at everywhere; 008 the table of paused
   * topics everywhere; 009 PostgreSQL's event log.
   */
  List<String> changesetsAfterTheRelease() {
    return switch (kind) {
      case POSTGRES ->
          List.of(
              "005-outcome-unknown-postgresql",
              "006-pending-index-order-postgresql",
              "007-parked-at-postgresql",
              "008-paused-topic-postgresql",
              "009-event-log-postgresql");
      case MARIADB ->
          List.of(
              "004-exact-key-collation-mariadb",
              "005-outcome-unknown-mariadb",
              "007-parked-at-mariadb",
              "008-paused-topic-mariadb");
      case SQLITE ->
          List.of("005-outcome-unknown-sqlite", "007-parked-at-sqlite", "008-paused-topic-sqlite");
    };
  }

  @Test
  void upgradeKeepsEveryRowAndMakesKeysExact() throws Exception {
    TestChangelogs.update(db.dataSource(), RELEASED_CHANGELOG);
    List<String> released = appliedChangesets();
    assertThat(released).hasSize(3).allMatch(id -> id.startsWith("00"));

    writeRowsTheOldSchemaAllows();
    Result<?> outboxBefore = outboxRows();
    Result<?> inboxBefore = inboxRows();

    OutboxSchema.migrate(db.dataSource());

    assertThat(appliedChangesets().subList(3, appliedChangesets().size()))
        .containsExactlyElementsOf(changesetsAfterTheRelease());
    assertThat(outboxRows()).as("outbox rows after the upgrade").isEqualTo(outboxBefore);
    assertThat(inboxRows()).as("inbox rows after the upgrade").isEqualTo(inboxBefore);
    assertKeysCompareExactly();
  }

  /**
   * Messages of look-alike aggregates and topics (PAD-equal aggregates are allowed: the column is
   * not unique), ids that differ by case, normalization or a trailing space of their own, one
   * message of each state, a lease held by a token with a trailing space, and inbox rows of
   * look-alike consumers and ids. The messages are rows of outbox_message, as the release wrote
   * them (this release's Outbox writes PostgreSQL's event log, which that schema has not).
   */
  void writeRowsTheOldSchemaAllows() {
    MutableClock clock = new MutableClock(T);
    JooqOutboxRepository rows = new JooqOutboxRepository(dsl);
    String[][] messages = {
      {"order-1", "acct-1", "keys"},
      {"ORDER-1", "acct-1 ", "keys"},
      {"caf\u00e9", "Acct-1", "keys"},
      {"cafe\u0301", "acct-1", "Keys"},
      {"order-2 ", "acct-1  ", "keys"},
      {"sent-1", "acct-2", "keys"},
      {"dead-1", "acct-3", "keys"},
      {"leased-1", "acct-4", "keys"},
    };
    for (String[] m : messages) {
      String payload;
      try {
        payload = new ObjectMapper().writeValueAsString(Map.of("id", m[0]));
      } catch (JsonProcessingException e) {
        throw new IllegalStateException(e);
      }
      NewMessage row = new NewMessage(m[0], m[1], m[2], payload, Map.of(), T, T);
      dsl.transaction(tx -> assertThat(rows.insert(tx.dsl(), row)).as(m[0]).isTrue());
    }
    JooqOutboxRepository repository = new JooqOutboxRepository(dsl);
    settle(repository, "acct-2", "sent-token", seq -> repository.markSent("sent-token", seq, T));
    settle(
        repository,
        "acct-3",
        "dead-token",
        seq -> repository.deadLetter("dead-token", seq.get(0), "given up", T) ? 1 : 0);
    settle(repository, "acct-4", "relay-1 ", seq -> 1); // left leased to "relay-1 "

    Inbox inbox = new Inbox(clock);
    String[][] seen = {
      {"ledger", "m-5"},
      {"ledger", "M-5"},
      {"ledger ", "m-6 "},
      {"Ledger", "m-5"},
      {"ledger", "caf\u00e9"},
      {"ledger", "cafe\u0301"},
    };
    for (String[] s : seen) {
      assertThat(seen(inbox, s[0], s[1])).isFalse();
    }
  }

  /**
   * Leases the one pending message of {@code aggregate} to {@code token} and settles it. The lease
   * names only the columns of the released schema: the repository's claim reads later ones.
   */
  private void settle(
      JooqOutboxRepository repository,
      String aggregate,
      String token,
      java.util.function.ToIntFunction<List<Long>> how) {
    List<Long> seqs =
        List.of(ReleasedSchema.leaseOldest(dsl, aggregate, token, T.plus(Duration.ofHours(1))));
    assertThat(how.applyAsInt(seqs)).isEqualTo(1);
  }

  /** What the upgraded schema must do that the old MariaDB schema could not. */
  void assertKeysCompareExactly() {
    Outbox outbox = Outbox.builder(dsl).clock(new MutableClock(T)).notifyOnWrite(false).build();
    int before = StoredMessages.of(dsl).count();
    // A trailing-space twin of a stored id, with the same content, is a new message.
    dsl.transaction(
        tx ->
            outbox
                .message("acct-1", "keys", Map.of("id", "order-1"))
                .id("order-1 ")
                .write(tx.dsl()));
    assertThat(StoredMessages.of(dsl).count()).isEqualTo(before + 1);
    assertThat(storedOfAggregate("acct-1")).isEqualTo(3);

    Inbox inbox = new Inbox(new MutableClock(T));
    assertThat(seen(inbox, "ledger", "m-5 ")).isFalse();
    assertThat(seen(inbox, "ledger ", "m-5")).isFalse();
    assertThat(seen(inbox, "ledger", "m-5")).isTrue();

    // The lease of "relay-1 " is not "relay-1"'s to settle.
    JooqOutboxRepository repository = new JooqOutboxRepository(dsl);
    long leased =
        dsl.select(OUTBOX_MESSAGE.SEQ)
            .from(OUTBOX_MESSAGE)
            .where(OUTBOX_MESSAGE.ID.eq("leased-1"))
            .fetchSingle(OUTBOX_MESSAGE.SEQ);
    assertThat(repository.markSent("relay-1", List.of(leased), T)).isZero();
    assertThat(repository.markSent("relay-1 ", List.of(leased), T)).isEqualTo(1);
  }

  /**
   * How many messages the database finds of aggregate {@code aggregate}, by its own comparison,
   * wherever it keeps them: rows of outbox_message and, on PostgreSQL, the event log's messages
   * without a copy there (where this release's Outbox writes).
   */
  int storedOfAggregate(String aggregate) {
    int rows = dsl.fetchCount(OUTBOX_MESSAGE, OUTBOX_MESSAGE.AGGREGATE.eq(aggregate));
    if (kind != TestDatabase.Kind.POSTGRES) {
      return rows;
    }
    return rows
        + dsl.fetchCount(
            dsl.selectOne()
                .from(OUTBOX_EVENT)
                .where(OUTBOX_EVENT.AGGREGATE.eq(aggregate))
                .andNotExists(
                    DSL.selectOne()
                        .from(OUTBOX_MESSAGE)
                        .where(OUTBOX_MESSAGE.ID.eq(OUTBOX_EVENT.ID))));
  }

  boolean seen(Inbox inbox, String consumer, String messageId) {
    return dsl.transactionResult(tx -> inbox.seen(tx.dsl(), consumer, messageId));
  }

  Result<?> outboxRows() {
    // The columns 001-004 created: later changesets add columns the released schema had not.
    return dsl.select(ReleasedSchema.outboxColumnsBefore005())
        .from(OUTBOX_MESSAGE)
        .orderBy(OUTBOX_MESSAGE.SEQ)
        .fetch();
  }

  Result<?> inboxRows() {
    // Ordered in Java: the database's order of look-alike keys is what changes.
    Result<? extends Record> rows = dsl.selectFrom(INBOX_MESSAGE).fetch();
    rows.sort(
        (a, b) -> {
          int c = a.get(INBOX_MESSAGE.CONSUMER).compareTo(b.get(INBOX_MESSAGE.CONSUMER));
          return c != 0
              ? c
              : a.get(INBOX_MESSAGE.MESSAGE_ID).compareTo(b.get(INBOX_MESSAGE.MESSAGE_ID));
        });
    return rows;
  }

  List<String> appliedChangesets() {
    return TestChangelogs.applied(dsl);
  }
}
