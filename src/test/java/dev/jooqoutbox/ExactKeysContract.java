package dev.jooqoutbox;

import static dev.jooqoutbox.schema.Tables.INBOX_MESSAGE;
import static dev.jooqoutbox.schema.Tables.OUTBOX_EVENT;
import static dev.jooqoutbox.schema.Tables.OUTBOX_EVENT_KEY;
import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static dev.jooqoutbox.schema.Tables.OUTBOX_RELAY;
import static dev.jooqoutbox.schema.Tables.OUTBOX_SHARD;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.jooqoutbox.internal.repository.JooqOutboxRepository;
import dev.jooqoutbox.relay.OutboxRelay;
import dev.jooqoutbox.testing.MutableClock;
import dev.jooqoutbox.testing.RowWriter;
import dev.jooqoutbox.testing.StoredMessages;
import dev.jooqoutbox.testing.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.Record2;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Ids, aggregates, topics, consumers, inbox message ids and claim tokens compare byte for byte:
 * keys that differ only by trailing spaces, by case, or by Unicode normalization (a composed and a
 * decomposed é) are different keys for the write, the idempotent write, the inbox, the claim's
 * per-aggregate order and the settle. A PAD SPACE collation (MariaDB's {@code utf8mb4_bin}) would
 * merge {@code "order-7"} and {@code "order-7 "}; a case-insensitive or a nondeterministic one
 * would merge more.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ExactKeysContract {

  /**
   * Keys that look alike. Every group starts with its plain form; the others differ from it by
   * trailing spaces, case, or normalization (U+00E9 against e + U+0301, equal in Unicode's eyes).
   */
  static final List<List<String>> LOOK_ALIKES =
      List.of(
          List.of("order-7", "order-7 ", "order-7  ", "Order-7", "ORDER-7"),
          List.of("caf\u00e9", "cafe\u0301", "caf\u00e9 ", "CAF\u00c9"));

  private static final Instant START = Instant.parse("2026-03-01T10:00:00Z");
  private static final String TOPIC = "keys";

  /** Where a contract runs: a migrated database and how to drop it. */
  record Target(DataSource dataSource, SQLDialect dialect, Runnable drop) {}

  private final TestDatabase.Kind kind;
  private Target target;
  private DSLContext dsl;
  private MutableClock clock;
  private Outbox outbox;
  private Inbox inbox;
  private JooqOutboxRepository repository;

  ExactKeysContract(TestDatabase.Kind kind) {
    this.kind = kind;
  }

  /** A migrated database of this contract's dialect. */
  Target open() {
    TestDatabase db = TestDatabase.migrated(kind);
    return new Target(db.dataSource(), db.dialect(), db::close);
  }

  @BeforeAll
  void createDatabase() {
    target = open();
    dsl = DSL.using(target.dataSource(), target.dialect());
  }

  @AfterAll
  void dropDatabase() {
    target.drop().run();
  }

  @BeforeEach
  void emptyTables() {
    dsl.deleteFrom(OUTBOX_MESSAGE).execute();
    dsl.deleteFrom(INBOX_MESSAGE).execute();
    if (dsl.dialect().family() == SQLDialect.POSTGRES) {
      // PostgreSQL's event log, where Outbox.write puts a message: no message, no relay, every
      // shard unread (as TestDatabase.truncate does; the ICU database here is no TestDatabase).
      dsl.truncate(OUTBOX_EVENT).execute();
      dsl.deleteFrom(OUTBOX_EVENT_KEY).execute();
      dsl.deleteFrom(OUTBOX_RELAY).execute();
      dsl.update(OUTBOX_SHARD)
          .set(OUTBOX_SHARD.RELAY_ID, (String) null)
          .set(OUTBOX_SHARD.LEASE_UNTIL, (Instant) null)
          .set(OUTBOX_SHARD.LOWER_SNAPSHOT, "1:1:")
          .set(OUTBOX_SHARD.UPPER_SNAPSHOT, (String) null)
          .set(OUTBOX_SHARD.AFTER_TXID, (Long) null)
          .set(OUTBOX_SHARD.AFTER_SEQ, (Long) null)
          .set(OUTBOX_SHARD.READ_MARK, (Long) null)
          .execute();
    }
    clock = new MutableClock(START);
    outbox = Outbox.builder(dsl).clock(clock).notifyOnWrite(false).build();
    inbox = new Inbox(clock);
    repository = new JooqOutboxRepository(dsl);
  }

  @Test
  void lookAlikeIdsAreDistinctMessages() {
    for (List<String> group : LOOK_ALIKES) {
      for (int i = 0; i < group.size(); i++) {
        String id = group.get(i);
        int n = i;
        String written =
            dsl.transactionResult(
                tx -> outbox.message("a-" + n, TOPIC, Map.of("n", n)).id(id).write(tx.dsl()));
        assertThat(written).isEqualTo(id);
      }
    }
    assertThat(stored().count()).isEqualTo(allKeys().size());
    for (List<String> group : LOOK_ALIKES) {
      for (int i = 0; i < group.size(); i++) {
        var rows = storedWithId(group.get(i));
        assertThat(rows).as("rows with id [%s]", group.get(i)).hasSize(1);
        assertThat(rows.get(0).value1()).isEqualTo(group.get(i));
        assertThat(rows.get(0).value2()).isEqualTo("a-" + i);
      }
    }
  }

  @Test
  void idempotentWriteTellsLookAlikeIdsApart() {
    // The same content under every look-alike id: each id is a message of its own...
    for (String id : allKeys()) {
      dsl.transaction(
          tx -> outbox.message("order", TOPIC, Map.of("total", 12)).id(id).write(tx.dsl()));
    }
    assertThat(stored().count()).isEqualTo(allKeys().size());
    // ...each a no-op when written again...
    for (String id : allKeys()) {
      String again =
          dsl.transactionResult(
              tx -> outbox.message("order", TOPIC, Map.of("total", 12)).id(id).write(tx.dsl()));
      assertThat(again).isEqualTo(id);
    }
    assertThat(stored().count()).isEqualTo(allKeys().size());
    // ...and each refuses other content, naming exactly its own id.
    for (String id : allKeys()) {
      assertThatThrownBy(
              () ->
                  dsl.transaction(
                      tx ->
                          outbox
                              .message("order", TOPIC, Map.of("total", 13))
                              .id(id)
                              .write(tx.dsl())))
          .isInstanceOf(DuplicateMessageException.class)
          .hasMessage("message id \"" + id + "\" is already stored with other content")
          .satisfies(e -> assertThat(((DuplicateMessageException) e).messageId()).isEqualTo(id));
    }
    assertThat(stored().count()).isEqualTo(allKeys().size());
  }

  @Test
  void inboxTellsLookAlikeMessageIdsApart() {
    List<String> effects = new ArrayList<>();
    for (String messageId : allKeys()) {
      assertThat(inbox.runOnce(dsl, "ledger", messageId, tx -> effects.add(messageId)))
          .as("first delivery of [%s]", messageId)
          .isTrue();
    }
    for (String messageId : allKeys()) {
      assertThat(inbox.runOnce(dsl, "ledger", messageId, tx -> effects.add("copy " + messageId)))
          .as("second delivery of [%s]", messageId)
          .isFalse();
    }
    assertThat(effects).containsExactlyElementsOf(allKeys());
    assertThat(dsl.fetchValues(INBOX_MESSAGE.MESSAGE_ID))
        .containsExactlyInAnyOrderElementsOf(allKeys());
  }

  @Test
  void inboxTellsLookAlikeConsumersApart() {
    for (String consumer : allKeys()) {
      assertThat(seen(consumer, "m-1")).as("first record for consumer [%s]", consumer).isFalse();
    }
    for (String consumer : allKeys()) {
      assertThat(seen(consumer, "m-1")).as("second record for consumer [%s]", consumer).isTrue();
    }
    assertThat(dsl.fetchValues(INBOX_MESSAGE.CONSUMER))
        .containsExactlyInAnyOrderElementsOf(allKeys());
  }

  @Test
  void failingMessageHoldsBackOnlyItsExactAggregate() {
    // Two messages per aggregate; the first message of each group's plain aggregate fails.
    for (String aggregate : allKeys()) {
      write(aggregate, 1);
      write(aggregate, 2);
    }
    Set<String> failing = new LinkedHashSet<>();
    LOOK_ALIKES.forEach(group -> failing.add(group.get(0)));
    List<String> delivered = new CopyOnWriteArrayList<>();
    List<String> failed = new CopyOnWriteArrayList<>();
    try (OutboxRelay relay =
        OutboxRelay.builder(dsl)
            .clock(clock)
            .listen(false)
            .handler(
                TOPIC,
                m -> {
                  String key = m.aggregate() + "#" + m.payload().get("n").asInt();
                  if (failing.contains(m.aggregate())) {
                    failed.add(key);
                    throw new IllegalStateException("fails: " + key);
                  }
                  delivered.add(key);
                })
            .build()) {
      // The clock stands still, so the failed messages wait for their backoff throughout.
      for (int round = 0; round < 4; round++) {
        relay.drainOnce(100);
      }
    }
    List<String> expected = new ArrayList<>();
    for (String aggregate : allKeys()) {
      if (!failing.contains(aggregate)) {
        expected.add(aggregate + "#1");
        expected.add(aggregate + "#2");
      }
    }
    assertThat(delivered).containsExactlyInAnyOrderElementsOf(expected);
    for (String aggregate : allKeys()) {
      if (!failing.contains(aggregate)) {
        assertThat(delivered.indexOf(aggregate + "#1"))
            .as("order within [%s]", aggregate)
            .isLessThan(delivered.indexOf(aggregate + "#2"));
      }
    }
    assertThat(failed)
        .containsExactlyInAnyOrderElementsOf(failing.stream().map(a -> a + "#1").toList());
  }

  @Test
  void claimFindsTheHeadOfEveryLookAlikeAggregateBehindAFullWindow() {
    // 250 pending messages of one aggregate whose head waits for a retry fill the claim's first
    // window (the oldest 200 pending rows): the look-alike aggregates written after them are found
    // only by the second pass, the skip scan over (aggregate, seq), which must step from each key
    // to the next without merging look-alikes.
    // The repository's own claim: its messages are rows of outbox_message on every database.
    for (int n = 0; n < 250; n++) {
      writeRow("hot", n);
    }
    var head = repository.claim(Set.of(TOPIC), 1, Duration.ofMinutes(1), "hot-claim", START);
    assertThat(head).extracting(OutboxMessage::aggregate).containsExactly("hot");
    repository.retryLater("hot-claim", head.get(0).seq(), "later", START.plus(Duration.ofHours(1)));
    for (String aggregate : allKeys()) {
      writeRow(aggregate, 1);
      writeRow(aggregate, 2);
    }

    List<OutboxMessage> claimed =
        repository.claim(Set.of(TOPIC), 50, Duration.ofMinutes(1), "heads", START);

    assertThat(claimed)
        .extracting(m -> m.aggregate() + "#" + m.payload().get("n").asInt())
        .containsExactlyInAnyOrderElementsOf(allKeys().stream().map(a -> a + "#1").toList());
  }

  @Test
  void topicsCompareExactly() {
    // The repository's own claim: its messages are rows of outbox_message on every database.
    RowWriter rows = new RowWriter(dsl, clock);
    for (String topic : List.of("keys", "Keys", "KEYS")) {
      rows.write("a-" + topic, topic, Map.of("t", topic));
    }
    List<OutboxMessage> claimed =
        repository.claim(Set.of("keys"), 10, Duration.ofMinutes(1), "token", START);
    assertThat(claimed).extracting(OutboxMessage::topic).containsExactly("keys");
  }

  /** The same through Outbox.write and a relay, wherever the database keeps what it writes. */
  @Test
  void aRelayHandlesExactlyItsTopics() {
    for (String topic : List.of("keys", "Keys", "KEYS")) {
      dsl.transaction(tx -> outbox.write(tx.dsl(), "a-" + topic, topic, Map.of("t", topic)));
    }
    List<String> delivered = new CopyOnWriteArrayList<>();
    try (OutboxRelay relay =
        OutboxRelay.builder(dsl)
            .clock(clock)
            .listen(false)
            .handler("keys", m -> delivered.add(m.topic()))
            .build()) {
      relay.drainOnce(10);
      relay.drainOnce(10);
    }
    assertThat(delivered).containsExactly("keys");
    StoredMessages stored = stored();
    assertThat(stored.sent()).isOne();
    for (String topic : List.of("Keys", "KEYS")) {
      assertThat(stored.all())
          .filteredOn(m -> m.topic().equals(topic))
          .singleElement()
          .satisfies(
              m -> assertThat(m.status()).as("topic [%s]", topic).isEqualTo(MessageStatus.PENDING));
    }
  }

  @Test
  void onlyTheExactClaimTokenSettles() {
    // The repository's own claim and settle: rows of outbox_message on every database.
    writeRow("a", 1);
    writeRow("b", 1);
    List<OutboxMessage> claimed =
        repository.claim(Set.of(TOPIC), 10, Duration.ofMinutes(1), "relay-1", START);
    assertThat(claimed).hasSize(2);
    List<Long> seqs = claimed.stream().map(OutboxMessage::seq).toList();
    for (String other : List.of("relay-1 ", "relay-1  ", "Relay-1", "RELAY-1")) {
      assertThat(repository.markSent(other, seqs, START)).as("mark by [%s]", other).isZero();
      assertThat(repository.retryLater(other, seqs.get(0), "x", START)).isFalse();
      assertThat(repository.release(other, seqs)).isZero();
    }
    assertThat(repository.markSent("relay-1", seqs, START)).isEqualTo(2);
  }

  private void write(String aggregate, int n) {
    dsl.transaction(tx -> outbox.write(tx.dsl(), aggregate, TOPIC, Map.of("n", n)));
  }

  /** A message as a row of outbox_message, for the row-state repository's own claim. */
  private void writeRow(String aggregate, int n) {
    new RowWriter(dsl, clock).write(aggregate, TOPIC, Map.of("n", n));
  }

  private StoredMessages stored() {
    return StoredMessages.of(dsl, clock);
  }

  /**
   * The (id, aggregate) of the messages whose id the database finds equal to {@code id}, wherever
   * it keeps them: rows of outbox_message and, on PostgreSQL, the event log's messages without a
   * copy there. The comparison is the database's (its collation), as a write's would be.
   */
  private List<Record2<String, String>> storedWithId(String id) {
    List<Record2<String, String>> found =
        new ArrayList<>(
            dsl.select(OUTBOX_MESSAGE.ID, OUTBOX_MESSAGE.AGGREGATE)
                .from(OUTBOX_MESSAGE)
                .where(OUTBOX_MESSAGE.ID.eq(id))
                .fetch());
    if (dsl.dialect().family() == SQLDialect.POSTGRES) {
      found.addAll(
          dsl.select(OUTBOX_EVENT.ID, OUTBOX_EVENT.AGGREGATE)
              .from(OUTBOX_EVENT)
              .where(OUTBOX_EVENT.ID.eq(id))
              .andNotExists(
                  DSL.selectOne().from(OUTBOX_MESSAGE).where(OUTBOX_MESSAGE.ID.eq(OUTBOX_EVENT.ID)))
              .fetch());
      // The log's idempotency key: one per message, found by the exact id only.
      assertThat(dsl.fetchCount(OUTBOX_EVENT_KEY, OUTBOX_EVENT_KEY.ID.eq(id)))
          .as("keys with id [%s]", id)
          .isOne();
    }
    return found;
  }

  private boolean seen(String consumer, String messageId) {
    return dsl.transactionResult(tx -> inbox.seen(tx.dsl(), consumer, messageId));
  }

  private static List<String> allKeys() {
    return LOOK_ALIKES.stream().flatMap(List::stream).toList();
  }
}
