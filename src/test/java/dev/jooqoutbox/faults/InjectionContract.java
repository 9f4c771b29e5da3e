package dev.jooqoutbox.faults;

import static dev.jooqoutbox.schema.Tables.INBOX_MESSAGE;
import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.jooqoutbox.DeadLetterQuery;
import dev.jooqoutbox.Inbox;
import dev.jooqoutbox.InvalidMessageException;
import dev.jooqoutbox.MessageStatus;
import dev.jooqoutbox.Outbox;
import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.internal.repository.JooqOutboxRepository;
import dev.jooqoutbox.relay.OutboxRelay;
import dev.jooqoutbox.testing.DatabaseFixture;
import dev.jooqoutbox.testing.RowWriter;
import dev.jooqoutbox.testing.StoredMessages;
import dev.jooqoutbox.testing.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jooq.DSLContext;
import org.jooq.Record;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Topics, aggregates, ids, headers, payloads and inbox keys full of quotes, semicolons and SQL:
 * every statement binds them, so they are stored and delivered verbatim where valid, refused where
 * the rules say so (the topic charset), and no other row changes. The test snapshots both tables
 * before and after.
 */
abstract class InjectionContract extends DatabaseFixture {

  static final List<String> NASTY =
      List.of(
          "'; DROP TABLE outbox_message; --",
          "\" OR 1=1 --",
          "Robert'); DELETE FROM inbox_message;--",
          "' OR '1'='1",
          "1; UPDATE outbox_message SET sent_at = NULL; --",
          "*/ DELETE FROM outbox_message /*",
          "`; DROP DATABASE test; #",
          "$$; DROP TABLE inbox_message; $$",
          "\\'; SELECT pg_sleep(10); --",
          "%_%' ESCAPE '\\",
          "x' UNION SELECT id, aggregate FROM outbox_message --");

  /** A topic in the allowed charset that still reads like SQL. */
  static final String SQLISH_TOPIC = "DROP.TABLE:outbox_message--";

  InjectionContract(TestDatabase.Kind kind) {
    super(kind);
  }

  @BeforeAll
  void setUpOnce() {
    Faults.quietLogs();
  }

  private record Given(
      String id, String aggregate, String topic, Map<String, String> headers, Object payload) {}

  @Test
  void sqlInValuesIsStoredAndDeliveredVerbatimAndTouchesNoOtherRow() throws Exception {
    DSLContext dsl = db.dsl();
    Outbox outbox = Outbox.create(dsl);
    Inbox inbox = new Inbox();
    JooqOutboxRepository repository = new JooqOutboxRepository(dsl);

    // Rows that must not change: pending of a topic no relay here handles, sent, dead, inbox.
    // Written as rows of outbox_message on every database (on PostgreSQL Outbox.write appends to
    // the event log): the test claims and settles them with the row-state repository itself.
    RowWriter rows = new RowWriter(dsl, java.time.Clock.systemUTC());
    List<String> canaries = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      long seq = rows.write("canary-" + i, "canary.topic", Map.of("n", i));
      canaries.add(
          dsl.select(OUTBOX_MESSAGE.ID)
              .from(OUTBOX_MESSAGE)
              .where(OUTBOX_MESSAGE.SEQ.eq(seq))
              .fetchSingle(OUTBOX_MESSAGE.ID));
    }
    var claimed =
        repository.claim(
            java.util.Set.of("canary.topic"), 2, Duration.ofMinutes(1), "t", Instant.now());
    assertThat(claimed)
        .extracting(OutboxMessage::id)
        .containsExactlyElementsOf(canaries.subList(0, 2));
    repository.markSent("t", List.of(claimed.get(0).seq()), Instant.now());
    repository.deadLetter("t", claimed.get(1).seq(), "canary dead", Instant.now());
    dsl.transaction(tx -> inbox.seen(tx.dsl(), "canary-consumer", "canary-message"));
    List<Map<String, Object>> outboxBefore = snapshotOutbox(dsl);
    List<Map<String, Object>> inboxBefore = snapshotInbox(dsl);

    // Valid writes: every text argument is the attack; the topic comes from the allowed charset.
    Map<String, Given> given = new LinkedHashMap<>();
    for (String nasty : NASTY) {
      Map<String, String> headers = Map.of(nasty, nasty, "plain", nasty);
      Map<String, Object> payload = Map.of(nasty, nasty, "nested", List.of(nasty));
      String id =
          dsl.transactionResult(
              tx ->
                  outbox
                      .message(nasty, SQLISH_TOPIC, payload)
                      .id("id " + nasty)
                      .headers(headers)
                      .write(tx.dsl()));
      assertThat(id).isEqualTo("id " + nasty);
      given.put(id, new Given(id, nasty, SQLISH_TOPIC, headers, payload));
      String text = "{\"sql\": " + new ObjectMapper().writeValueAsString(nasty) + "}";
      String textId =
          dsl.transactionResult(tx -> outbox.write(tx.dsl(), "text " + nasty, "inject.text", text));
      given.put(textId, new Given(textId, "text " + nasty, "inject.text", Map.of(), text));
    }
    // Refused: the topic charset has no quote, space or semicolon.
    for (String nasty : NASTY) {
      assertThatThrownBy(
              () -> dsl.transaction(tx -> outbox.write(tx.dsl(), "a", nasty, Map.of("k", 1))))
          .isInstanceOf(InvalidMessageException.class)
          .satisfies(e -> assertThat(((InvalidMessageException) e).argument()).isEqualTo("topic"));
      assertThatThrownBy(() -> OutboxRelay.builder(dsl).handler(nasty, m -> {}))
          .isInstanceOf(IllegalArgumentException.class);
    }
    // Inbox keys and operator calls take the attack as a value too.
    for (String nasty : NASTY) {
      boolean first = dsl.transactionResult(tx -> inbox.seen(tx.dsl(), nasty, nasty));
      boolean second = dsl.transactionResult(tx -> inbox.seen(tx.dsl(), nasty, nasty));
      assertThat(first).as("first record of inbox key %s", nasty).isFalse();
      assertThat(second).as("second record of inbox key %s", nasty).isTrue();
      assertThat(repository.requeue(nasty, Instant.now())).isFalse();
      assertThat(repository.requeueTopic(nasty, Instant.now())).isZero();
      assertThat(repository.deadLetters(DeadLetterQuery.all().topic(nasty).limit(10)).letters())
          .isEmpty();
    }

    assertThat(snapshotOutbox(dsl).subList(0, outboxBefore.size()))
        .as("rows written before")
        .isEqualTo(outboxBefore);
    // Every valid write stored, wherever the database keeps messages (on PostgreSQL the event log).
    assertThat(StoredMessages.of(dsl).keys()).hasSize(outboxBefore.size() + given.size());
    assertThat(snapshotInbox(dsl))
        .containsAll(inboxBefore)
        .hasSize(inboxBefore.size() + NASTY.size());

    // Delivered verbatim.
    List<OutboxMessage> delivered = new CopyOnWriteArrayList<>();
    try (OutboxRelay relay =
        OutboxRelay.builder(dsl)
            .handler(SQLISH_TOPIC, delivered::add)
            .handler("inject.text", delivered::add)
            .listen(false)
            .build()) {
      assertThat(relay.drainOnce(1000)).isEqualTo(given.size());
    }
    ObjectMapper mapper = new ObjectMapper();
    assertThat(delivered)
        .extracting(OutboxMessage::id)
        .containsExactlyInAnyOrderElementsOf(given.keySet());
    for (OutboxMessage m : delivered) {
      Given g = given.get(m.id());
      assertThat(m.aggregate()).isEqualTo(g.aggregate());
      assertThat(m.topic()).isEqualTo(g.topic());
      assertThat(m.headers()).isEqualTo(g.headers());
      JsonNode expected =
          g.payload() instanceof String text
              ? mapper.readTree(text)
              : mapper.valueToTree(g.payload());
      assertThat(m.payload()).isEqualTo(expected);
    }

    // Delivery changed only the delivered rows; the canaries are as they were.
    assertThat(snapshotOutbox(dsl).subList(0, outboxBefore.size())).isEqualTo(outboxBefore);
    assertThat(
            StoredMessages.of(dsl).all().stream()
                .filter(m -> given.containsKey(m.id()) && m.status() == MessageStatus.SENT)
                .count())
        .as("delivered messages sent")
        .isEqualTo(given.size());
    // And each canary by its id, in the state it was left in: sent, dead, pending untouched.
    var sent =
        dsl.selectFrom(OUTBOX_MESSAGE).where(OUTBOX_MESSAGE.ID.eq(canaries.get(0))).fetchSingle();
    var dead =
        dsl.selectFrom(OUTBOX_MESSAGE).where(OUTBOX_MESSAGE.ID.eq(canaries.get(1))).fetchSingle();
    var pending =
        dsl.selectFrom(OUTBOX_MESSAGE).where(OUTBOX_MESSAGE.ID.eq(canaries.get(2))).fetchSingle();
    assertThat(sent.getSentAt()).as("sent canary").isNotNull();
    assertThat(sent.getDeadAt()).isNull();
    assertThat(dead.getDeadAt()).as("dead canary").isNotNull();
    assertThat(dead.getLastError()).isEqualTo("canary dead");
    assertThat(pending.getSentAt()).as("pending canary").isNull();
    assertThat(pending.getDeadAt()).isNull();
    assertThat(pending.getAttempts()).as("pending canary never claimed").isZero();
    assertThat(pending.getClaimToken()).isNull();
    assertThat(
            dsl.fetchCount(
                INBOX_MESSAGE,
                INBOX_MESSAGE
                    .CONSUMER
                    .eq("canary-consumer")
                    .and(INBOX_MESSAGE.MESSAGE_ID.eq("canary-message"))))
        .as("inbox canary")
        .isEqualTo(1);
  }

  /** Every column of every outbox row, in seq order. */
  private static List<Map<String, Object>> snapshotOutbox(DSLContext dsl) {
    return dsl.selectFrom(OUTBOX_MESSAGE).orderBy(OUTBOX_MESSAGE.SEQ).fetch().stream()
        .map(InjectionContract::columns)
        .toList();
  }

  private static List<Map<String, Object>> snapshotInbox(DSLContext dsl) {
    return dsl
        .selectFrom(INBOX_MESSAGE)
        .orderBy(INBOX_MESSAGE.CONSUMER, INBOX_MESSAGE.MESSAGE_ID)
        .fetch()
        .stream()
        .map(InjectionContract::columns)
        .toList();
  }

  private static Map<String, Object> columns(Record r) {
    Map<String, Object> columns = new LinkedHashMap<>();
    for (var f : r.fields()) {
      Object value = r.get(f);
      // JSON values compare by text; jOOQ's JSON wrapper has no value equality across dialects.
      columns.put(f.getName(), value instanceof org.jooq.JSON json ? json.data() : value);
    }
    return columns;
  }
}
