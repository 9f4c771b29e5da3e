package dev.jooqoutbox.faults;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;

import dev.jooqoutbox.Outbox;
import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.internal.repository.JooqOutboxRepository;
import dev.jooqoutbox.relay.OutboxRelay;
import dev.jooqoutbox.schema.tables.records.OutboxMessageRecord;
import dev.jooqoutbox.testing.DatabaseFixture;
import dev.jooqoutbox.testing.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jooq.DSLContext;
import org.jooq.JSON;
import org.jooq.SQLDialect;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.SQLDataType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Rows written by hand with SQL (jOOQ's DSL, not {@link Outbox}) that no write through the API
 * could produce: headers that are not a JSON object of strings, a payload that is not JSON, a topic
 * no relay handles or that no write would accept. Each is dead-lettered with a clear error or left
 * alone, and the relay goes on delivering everything else, the corrupt row's aggregate included.
 */
abstract class CorruptRowContract extends DatabaseFixture {

  CorruptRowContract(TestDatabase.Kind kind) {
    super(kind);
  }

  @BeforeAll
  void setUpOnce() {
    Faults.quietLogs();
  }

  /** Headers values that are valid JSON (so every dialect stores them) but not an object. */
  static final List<String> CORRUPT_JSON_HEADERS =
      List.of("[1,2]", "{\"a\": null}", "{\"a\": {\"b\": 1}}", "\"text\"", "42", "[]");

  /** Values only SQLite stores: its headers column is TEXT. */
  static final List<String> CORRUPT_TEXT_HEADERS = List.of("not json", "{\"a\": \"b\"", "");

  @Test
  void corruptHeadersAreDeadLetteredAtClaimAndTheRelayGoesOn() {
    DSLContext dsl = db.dsl();
    List<String> corrupt = new ArrayList<>(CORRUPT_JSON_HEADERS);
    if (kind == TestDatabase.Kind.SQLITE) {
      corrupt.addAll(CORRUPT_TEXT_HEADERS);
    }
    Outbox outbox = Outbox.create(dsl);
    Map<String, String> corruptIds = new LinkedHashMap<>(); // id -> headers
    List<String> followers = new ArrayList<>();
    List<String> healthy = new ArrayList<>();
    for (int i = 0; i < corrupt.size(); i++) {
      String aggregate = "corrupt-" + i;
      String id = insertByHand(dsl, aggregate, "fault.ok", "{\"i\": " + i + "}", corrupt.get(i));
      corruptIds.put(id, corrupt.get(i));
      followers.add(
          dsl.transactionResult(tx -> outbox.write(tx.dsl(), aggregate, "fault.ok", "{}")));
    }
    for (int n = 0; n < 20; n++) {
      int k = n;
      healthy.add(
          dsl.transactionResult(
              tx -> outbox.write(tx.dsl(), "healthy-" + (k % 4), "fault.ok", Map.of("n", k))));
    }

    List<String> delivered = deliverEverything(dsl);

    for (var e : corruptIds.entrySet()) {
      OutboxMessageRecord row = row(dsl, e.getKey());
      assertThat(row.getDeadAt()).as("dead_at of headers %s", e.getValue()).isNotNull();
      assertThat(row.getSentAt()).isNull();
      assertThat(row.getAttempts()).as("claimed once, never run").isEqualTo(1);
      assertThat(row.getClaimToken()).isNull();
      assertThat(row.getLastError())
          .as("error of headers %s", e.getValue())
          .contains("corrupt row")
          .contains("headers");
    }
    assertThat(delivered).as("delivered").doesNotContainAnyElementsOf(corruptIds.keySet());
    assertThat(delivered).containsAll(followers).containsAll(healthy);
    assertThat(delivered).doesNotHaveDuplicates();
  }

  @Test
  void headersThatAreJsonNullCountAsNoHeaders() {
    DSLContext dsl = db.dsl();
    String id = insertByHand(dsl, "null-headers", "fault.ok", "{}", "null");
    List<OutboxMessage> claimed =
        new JooqOutboxRepository(dsl)
            .claim(Set.of("fault.ok"), 10, Duration.ofSeconds(5), "token", Instant.now());
    assertThat(claimed).extracting(OutboxMessage::id).containsExactly(id);
    assertThat(claimed.get(0).headers()).isEmpty();
  }

  @Test
  void payloadThatIsNotJsonIsStoredOnlyWhereTheColumnIsText() {
    DSLContext dsl = db.dsl();
    if (kind != TestDatabase.Kind.SQLITE) {
      // PostgreSQL's jsonb and MariaDB's JSON check refuse it: the corruption cannot happen.
      assertThatThrownBy(() -> insertByHand(dsl, "bad-payload", "fault.ok", "{not json", null))
          .isInstanceOf(DataAccessException.class);
      assertThatThrownBy(() -> insertByHand(dsl, "bad-headers", "fault.ok", "{}", "{not json"))
          .isInstanceOf(DataAccessException.class);
      assertThat(dsl.fetchCount(OUTBOX_MESSAGE)).isZero();
      return;
    }
    // SQLite stores any text. The relay hands the raw text on (it does not parse payloads); a
    // handler that reads it gets a clear OutboxException, and after the last attempt the message
    // is a dead letter with that error. The aggregate and the others go on.
    String bad = insertByHand(dsl, "bad-payload", "fault.ok", "{not json", null);
    Outbox outbox = Outbox.create(dsl);
    String follower =
        dsl.transactionResult(tx -> outbox.write(tx.dsl(), "bad-payload", "fault.ok", "{}"));
    String other = dsl.transactionResult(tx -> outbox.write(tx.dsl(), "other", "fault.ok", "[]"));

    List<String> delivered = deliverEverything(dsl);
    OutboxMessageRecord row = row(dsl, bad);
    assertThat(row.getDeadAt()).isNotNull();
    assertThat(row.getLastError())
        .startsWith("dev.jooqoutbox.OutboxException: payload of message \"" + bad + "\"")
        .contains("is not valid JSON");
    assertThat(delivered).containsExactlyInAnyOrder(follower, other);
  }

  @Test
  void rowsOfTopicsNoRelayHandlesAreLeftAloneAndDeliveredByOneThatDoes() {
    DSLContext dsl = db.dsl();
    String orphan = insertByHand(dsl, "orphan-1", "nobody.handles.this", "{}", null);
    // Not a topic any write accepts; a relay never claims it, whatever it is.
    String malformed = insertByHand(dsl, "orphan-2", "bad topic'; --", "{}", null);
    Outbox outbox = Outbox.create(dsl);
    String healthy = dsl.transactionResult(tx -> outbox.write(tx.dsl(), "h", "fault.ok", "{}"));

    List<String> delivered = new CopyOnWriteArrayList<>();
    try (OutboxRelay relay = relay(dsl, delivered)) {
      relay.start();
      await().atMost(Duration.ofSeconds(30)).until(() -> delivered.contains(healthy));
      // A few more cycles: the relay must go on polling past the rows it does not handle.
      String later = dsl.transactionResult(tx -> outbox.write(tx.dsl(), "h2", "fault.ok", "{}"));
      await().atMost(Duration.ofSeconds(30)).until(() -> delivered.contains(later));
    }
    for (String id : List.of(orphan, malformed)) {
      OutboxMessageRecord row = row(dsl, id);
      assertThat(row.getAttempts()).as("attempts of %s", row.getTopic()).isZero();
      assertThat(row.getClaimToken()).isNull();
      assertThat(row.getSentAt()).isNull();
      assertThat(row.getDeadAt()).isNull();
    }

    List<String> orphans = new CopyOnWriteArrayList<>();
    try (OutboxRelay relay =
        OutboxRelay.builder(dsl)
            .handler("nobody.handles.this", m -> orphans.add(m.id()))
            .pollInterval(Duration.ofMillis(50))
            .listen(false)
            .build()) {
      relay.start();
      await().atMost(Duration.ofSeconds(30)).until(() -> orphans.contains(orphan));
    }
    assertThat(row(dsl, malformed).getAttempts()).isZero();
  }

  private OutboxRelay relay(DSLContext dsl, List<String> delivered) {
    return OutboxRelay.builder(dsl)
        .handler(
            "fault.ok",
            m -> {
              m.payload(); // a handler that reads its payload
              delivered.add(m.id());
            })
        .batchSize(5)
        .maxAttempts(2)
        .pollInterval(Duration.ofMillis(50))
        .backoff(Duration.ofMillis(20), Duration.ofMillis(50))
        .listen(false)
        .build();
  }

  /**
   * Inserts a row as a hand-written SQL statement would, bypassing every check of the API. On
   * SQLite the JSON columns are bound as plain text: jOOQ wraps a JSON bind in SQLite's {@code
   * json(?)}, which would check it, but a statement written by hand has no such wrapper.
   */
  static String insertByHand(
      DSLContext dsl, String aggregate, String topic, String payload, String headers) {
    String id = "by-hand-" + UUID.randomUUID();
    Instant now = Instant.now();
    var insert =
        dsl.insertInto(OUTBOX_MESSAGE)
            .set(OUTBOX_MESSAGE.ID, id)
            .set(OUTBOX_MESSAGE.AGGREGATE, aggregate)
            .set(OUTBOX_MESSAGE.TOPIC, topic)
            .set(OUTBOX_MESSAGE.CREATED_AT, now)
            .set(OUTBOX_MESSAGE.AVAILABLE_AT, now)
            .set(OUTBOX_MESSAGE.ATTEMPTS, 0);
    if (dsl.dialect().family() == SQLDialect.SQLITE) {
      insert
          .set(field(name(OUTBOX_MESSAGE.PAYLOAD.getName()), SQLDataType.CLOB), payload)
          .set(field(name(OUTBOX_MESSAGE.HEADERS.getName()), SQLDataType.CLOB), headers)
          .execute();
    } else {
      insert
          .set(OUTBOX_MESSAGE.PAYLOAD, JSON.json(payload))
          .set(OUTBOX_MESSAGE.HEADERS, headers == null ? null : JSON.json(headers))
          .execute();
    }
    return id;
  }

  private static OutboxMessageRecord row(DSLContext dsl, String id) {
    return dsl.selectFrom(OUTBOX_MESSAGE).where(OUTBOX_MESSAGE.ID.eq(id)).fetchSingle();
  }

  /** Runs a relay until nothing is pending; returns the ids it delivered, in order. */
  private List<String> deliverEverything(DSLContext dsl) {
    List<String> delivered = new CopyOnWriteArrayList<>();
    try (OutboxRelay relay = relay(dsl, delivered)) {
      relay.start();
      await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> Faults.pending(dsl) == 0); // every message is of topic fault.ok
    }
    return delivered;
  }
}
