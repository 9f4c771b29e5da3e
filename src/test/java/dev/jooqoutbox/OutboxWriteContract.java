package dev.jooqoutbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.table;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.jooqoutbox.internal.repository.NewMessage;
import dev.jooqoutbox.testing.DatabaseFixture;
import dev.jooqoutbox.testing.LockWait;
import dev.jooqoutbox.testing.StoredMessages;
import dev.jooqoutbox.testing.TestDatabase;
import dev.jooqoutbox.testing.WarningLog;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Table;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Outbox} writes: on the caller's transaction, every refusal with nothing written and the
 * caller's transaction still usable, idempotent caller ids, and what a written message looks like
 * when the relay claims it.
 */
abstract class OutboxWriteContract extends DatabaseFixture {

  /** The business data a message describes; it must commit and roll back with the message. */
  private static final Table<?> ORDERS = table(name("test_business_order"));

  private static final Field<String> ORDER_ID = field(name("order_id"), SQLDataType.VARCHAR(64));

  OutboxWriteContract(TestDatabase.Kind kind) {
    super(kind);
  }

  @BeforeAll
  void setUpOnce() {
    db.dsl()
        .createTable(ORDERS)
        .column(ORDER_ID, SQLDataType.VARCHAR(64).nullable(false))
        .constraints(DSL.primaryKey(ORDER_ID))
        .execute();
  }

  @BeforeEach
  void setUp() {
    db.dsl().deleteFrom(ORDERS).execute();
  }

  // ---------------------------------------------------------------- the caller's transaction

  @Test
  void messageCommitsWithTheBusinessRow() {
    String id =
        db.dsl()
            .transactionResult(
                tx -> {
                  insertOrder(tx.dsl(), "o-1");
                  return outbox.write(tx.dsl(), "order-1", "order.placed", Map.of("total", 12));
                });

    assertThat(orderIds()).containsExactly("o-1");
    StoredMessages.Stored row = onlyRow();
    assertThat(row.id()).isEqualTo(id);
    assertThat(row.aggregate()).isEqualTo("order-1");
    assertThat(row.topic()).isEqualTo("order.placed");
    assertThat(readTree(row.payloadJson())).isEqualTo(readTree("{\"total\":12}"));
    assertThat(row.createdAt()).isEqualTo(START);
    assertThat(row.availableAt()).isEqualTo(START);
    assertThat(row.attempts()).isZero();
    assertThat(row.status()).isEqualTo(MessageStatus.PENDING);
    assertThat(row.state().sentAt()).isNull();
    assertThat(row.state().deadAt()).isNull();
    assertThat(row.state().leasedUntil()).isNull();
  }

  @Test
  void messageDisappearsWithTheBusinessRollback() {
    Throwable thrown =
        failureOfTransaction(
            tx -> {
              insertOrder(tx.dsl(), "o-1");
              outbox.write(tx.dsl(), "order-1", "order.placed", Map.of("total", 12));
              throw new IllegalStateException("business failure after the write");
            });

    assertThat(thrown).isInstanceOf(IllegalStateException.class);
    assertThat(orderIds()).isEmpty();
    assertThat(outboxCount()).isZero();
  }

  @Test
  void boundContextJoinsTheTransactionOfItsConnection() throws Exception {
    // What a framework-managed transaction looks like to jOOQ: a context whose connection is in
    // a transaction the framework commits or rolls back.
    try (Connection connection = db.dataSource().getConnection()) {
      connection.setAutoCommit(false);
      DSLContext managed = DSL.using(connection, db.dialect());
      Outbox bound = Outbox.builder(managed).clock(clock).build();

      insertOrder(managed, "o-rolled-back");
      bound.write("order-1", "order.placed", Map.of("n", 1));
      connection.rollback();
      assertThat(outboxCount()).isZero();

      insertOrder(managed, "o-committed");
      String id = bound.message("order-2", "order.placed", Map.of("n", 2)).write();
      connection.commit();
      connection.setAutoCommit(true);

      assertThat(orderIds()).containsExactly("o-committed");
      assertThat(onlyRow().id()).isEqualTo(id);
    }
  }

  @Test
  void autocommitConnectionIsRefused() throws Exception {
    // The pool hands out connections in autocommit mode: no transaction to join.
    assertThatThrownBy(() -> outbox.write("order-1", "order.placed", Map.of("n", 1)))
        .isInstanceOf(NoTransactionException.class)
        .hasMessageContaining("autocommit");
    assertThatThrownBy(() -> outbox.write(db.dsl(), "order-1", "order.placed", Map.of("n", 1)))
        .isInstanceOf(NoTransactionException.class);
    try (Connection connection = db.dataSource().getConnection()) {
      DSLContext autocommit = DSL.using(connection, db.dialect());
      assertThatThrownBy(
              () ->
                  outbox
                      .message("order-1", "order.placed", Map.of("n", 1))
                      .id("caller-1")
                      .write(autocommit))
          .isInstanceOf(NoTransactionException.class);
    }
    assertThat(outboxCount()).isZero();
  }

  // ---------------------------------------------------------------- refusals

  @Test
  void badAggregatesAreRefused() {
    for (String aggregate :
        new String[] {
          null, "", "a".repeat(256), "nul\0inside", "lone \uD800 high", "lone \uDC00"
        }) {
      assertRefused(
          InvalidMessageException.class,
          "aggregate",
          tx -> outbox.write(tx, aggregate, "order.placed", Map.of("n", 1)));
    }
  }

  @Test
  void badTopicsAreRefused() {
    for (String topic :
        new String[] {
          null,
          "",
          "t".repeat(256),
          "with space",
          "slash/topic",
          "star*",
          "ümlaut",
          "semi;colon",
          "quote'",
          "nul\0",
          "tab\t"
        }) {
      assertRefused(
          InvalidMessageException.class,
          "topic",
          tx -> outbox.write(tx, "order-1", topic, Map.of("n", 1)));
    }
  }

  @Test
  void longestAggregateAndTopicAndEveryTopicCharacterAreAccepted() {
    String aggregate = "é".repeat(255); // 255 characters, 510 bytes of UTF-8
    String topic = "AZaz09._:-" + "x".repeat(245);
    db.dsl().transaction(tx -> outbox.write(tx.dsl(), aggregate, topic, Map.of("n", 1)));

    StoredMessages.Stored row = onlyRow();
    assertThat(row.aggregate()).isEqualTo(aggregate);
    assertThat(row.topic()).isEqualTo(topic);
  }

  @Test
  void badIdsAreRefused() {
    for (String id : new String[] {null, "", "i".repeat(256), "nul\0", "lone \uD800"}) {
      assertRefused(
          InvalidMessageException.class,
          "id",
          tx -> outbox.message("order-1", "order.placed", Map.of("n", 1)).id(id).write(tx));
    }
  }

  @Test
  void badHeadersAreRefused() {
    assertRefused(
        InvalidMessageException.class,
        "headers",
        tx -> outbox.message("a", "t", Map.of()).headers(null).write(tx));
    assertRefused(
        InvalidMessageException.class,
        "header name",
        tx -> outbox.message("a", "t", Map.of()).header("", "v").write(tx));
    assertRefused(
        InvalidMessageException.class,
        "header name",
        tx -> outbox.message("a", "t", Map.of()).header("n\0", "v").write(tx));
    assertRefused(
        InvalidMessageException.class,
        "header h",
        tx -> outbox.message("a", "t", Map.of()).header("h", null).write(tx));
    assertRefused(
        InvalidMessageException.class,
        "header h",
        tx -> outbox.message("a", "t", Map.of()).header("h", "lone \uDC00").write(tx));
    Map<String, String> tooMany = new HashMap<>();
    for (int i = 0; i <= MessageRules.MAX_HEADERS; i++) {
      tooMany.put("h" + i, "v");
    }
    assertRefused(
        InvalidMessageException.class,
        "headers",
        tx -> outbox.message("a", "t", Map.of()).headers(tooMany).write(tx));
  }

  @Test
  void badDelaysAreRefused() {
    assertRefused(
        InvalidMessageException.class,
        "delay",
        tx -> outbox.message("a", "t", Map.of()).delay(Duration.ofSeconds(-1)).write(tx));
    assertRefused(
        InvalidMessageException.class,
        "delay",
        tx -> outbox.message("a", "t", Map.of()).delay(null).write(tx));
    assertRefused(
        InvalidMessageException.class,
        "availableAt",
        tx -> outbox.message("a", "t", Map.of()).availableAt(null).write(tx));
  }

  @Test
  void payloadsThatDoNotSerializeAreRefused() {
    assertRefused(InvalidMessageException.class, "payload", tx -> outbox.write(tx, "a", "t", null));
    // No properties, no serializer: Jackson refuses an empty bean.
    assertRefused(
        InvalidMessageException.class, "payload", tx -> outbox.write(tx, "a", "t", new Object()));
    Node cycle = new Node();
    cycle.next = new Node();
    cycle.next.next = cycle;
    assertRefused(
        InvalidMessageException.class, "payload", tx -> outbox.write(tx, "a", "t", cycle));
    Map<String, Object> selfContaining = new HashMap<>();
    selfContaining.put("self", selfContaining);
    assertRefused(
        InvalidMessageException.class, "payload", tx -> outbox.write(tx, "a", "t", selfContaining));
    assertRefused(
        InvalidMessageException.class, "payload", tx -> outbox.write(tx, "a", "t", new Throws()));
  }

  @Test
  void textsThatAreNotJsonAreRefused() {
    for (String text :
        new String[] {
          "", "   ", "{not json", "{\"a\":1} trailing", "{\"a\":1}{}", "plain words", "hello"
        }) {
      assertRefused(
          InvalidMessageException.class, "payload", tx -> outbox.write(tx, "a", "t", text));
    }
  }

  @Test
  void payloadsThatCannotBeStoredVerbatimAreRefused() {
    assertRefused(
        InvalidMessageException.class,
        "payload",
        tx -> outbox.write(tx, "a", "t", Map.of("text", "nul\0inside")));
    assertRefused(
        InvalidMessageException.class,
        "payload",
        tx -> outbox.write(tx, "a", "t", "{\"text\":\"nul\\u0000inside\"}"));
    assertRefused(
        InvalidMessageException.class,
        "payload",
        tx -> outbox.write(tx, "a", "t", Map.of("nul\0key", "v")));
    assertRefused(
        InvalidMessageException.class,
        "payload",
        tx -> outbox.write(tx, "a", "t", Map.of("text", "lone \uD800 high")));
    assertRefused(
        InvalidMessageException.class,
        "payload",
        tx -> outbox.write(tx, "a", "t", "{\"text\":\"lone \\udc00 low\"}"));
  }

  @Test
  void payloadOverTheLimitIsRefusedAndAtTheLimitAccepted() {
    Outbox small = Outbox.builder(db.dsl()).clock(clock).maxPayloadBytes(100).build();
    // {"t":"…"} is 8 bytes around the text; é is 2 bytes of UTF-8.
    String atLimit = "{\"t\":\"" + "é".repeat(46) + "\"}";
    String overLimit = "{\"t\":\"" + "é".repeat(46) + "x\"}";
    assertRefused(
        InvalidMessageException.class, "payload", tx -> small.write(tx, "a", "t", overLimit));

    db.dsl().transaction(tx -> small.write(tx.dsl(), "a", "t", atLimit));
    assertThat(readTree(onlyRow().payloadJson())).isEqualTo(readTree(atLimit));
  }

  @Test
  void defaultLimitIsOneMebibyte() {
    String big = "\"" + "x".repeat(Outbox.DEFAULT_MAX_PAYLOAD_BYTES - 1) + "\"";
    assertRefused(InvalidMessageException.class, "payload", tx -> outbox.write(tx, "a", "t", big));
  }

  // ---------------------------------------------------------------- idempotent caller ids

  @Test
  void sameIdWithSameContentReturnsTheIdAndWritesNothing() {
    Map<String, Object> payload = new LinkedHashMap<>();
    payload.put("a", 1);
    payload.put("b", List.of("x", "y"));
    db.dsl()
        .transaction(
            tx ->
                outbox
                    .message("order-1", "order.placed", payload)
                    .id("caller-1")
                    .header("trace", "t-1")
                    .write(tx.dsl()));
    StoredMessages.Stored first = onlyRow();
    clock.advance(Duration.ofMinutes(5));

    String again =
        db.dsl()
            .transactionResult(
                tx -> {
                  // Same content as JSON text with other key order and spacing.
                  String id =
                      outbox
                          .message("order-1", "order.placed", "{ \"b\": [\"x\",\"y\"], \"a\": 1 }")
                          .id("caller-1")
                          .header("trace", "t-1")
                          .write(tx.dsl());
                  // The caller's transaction goes on: on PostgreSQL a failed statement would
                  // abort it and this insert would fail.
                  insertOrder(tx.dsl(), "o-after-duplicate");
                  return id;
                });

    assertThat(again).isEqualTo("caller-1");
    assertThat(orderIds()).containsExactly("o-after-duplicate");
    assertThat(onlyRow()).isEqualTo(first);
  }

  @Test
  void sameIdWrittenAgainIsNotAWarning() {
    db.dsl()
        .transaction(tx -> outbox.message("a", "t", Map.of("n", 1)).id("caller-1").write(tx.dsl()));
    try (WarningLog log = WarningLog.capture()) {
      db.dsl()
          .transaction(
              tx -> outbox.message("a", "t", Map.of("n", 1)).id("caller-1").write(tx.dsl()));
      assertThat(log.warnings()).as("what the driver or the pool logged for a re-write").isEmpty();
    }
    assertThat(outboxCount()).isEqualTo(1);
  }

  @Test
  void aRowRefusedForAnotherReasonThanItsIdIsNotTakenForADuplicate() {
    db.dsl()
        .transaction(tx -> outbox.message("a", "t", Map.of("n", 1)).id("caller-1").write(tx.dsl()));
    // Below the API, which never writes such a row: a payload that is not JSON, with a stored id.

    NewMessage notJson = new NewMessage("caller-1", "a", "t", "{not json", Map.of(), START, START);
    assertThatThrownBy(() -> db.dsl().transaction(tx -> repository.insert(tx.dsl(), notJson)))
        .isInstanceOf(DataAccessException.class);
    assertThat(outboxCount()).isEqualTo(1);
  }

  @Test
  void sameIdWithNumbersTheDatabaseRewritesIsStillTheSameContent() {
    // Jackson writes 1.0E10 and -0.0; PostgreSQL's jsonb gives back 10000000000 and 0.0.
    Map<String, Object> payload = new LinkedHashMap<>();
    payload.put("big", 1.0E10);
    payload.put("small", 1.0E-7);
    payload.put("negativeZero", -0.0);
    payload.put("exact", new java.math.BigDecimal("1.50"));
    payload.put("list", List.of(1.0E20, 2));
    for (int i = 0; i < 2; i++) {
      String id =
          db.dsl()
              .transactionResult(
                  tx -> outbox.message("a", "t", payload).id("caller-numbers").write(tx.dsl()));
      assertThat(id).isEqualTo("caller-numbers");
    }
    assertThat(outboxCount()).isEqualTo(1);

    // A number of another value is other content.
    Map<String, Object> other = new LinkedHashMap<>(payload);
    other.put("big", 1.0E11);
    assertRefused(
        DuplicateMessageException.class,
        "payload",
        tx -> outbox.message("a", "t", other).id("caller-numbers").write(tx));
  }

  @Test
  void sameIdTwiceInOneTransactionWritesOnce() {
    db.dsl()
        .transaction(
            tx -> {
              outbox.message("a", "t", Map.of("n", 1)).id("caller-1").write(tx.dsl());
              outbox.message("a", "t", Map.of("n", 1)).id("caller-1").write(tx.dsl());
              assertThatThrownBy(
                      () -> outbox.message("a", "t", Map.of("n", 2)).id("caller-1").write(tx.dsl()))
                  .isInstanceOf(DuplicateMessageException.class);
              insertOrder(tx.dsl(), "o-1");
            });
    assertThat(outboxCount()).isEqualTo(1);
    assertThat(orderIds()).containsExactly("o-1");
  }

  @Test
  void sameIdWrittenConcurrentlyIsWrittenOnce() throws Exception {
    ExecutorService other = Executors.newSingleThreadExecutor();
    try (Connection connection = db.dataSource().getConnection()) {
      connection.setAutoCommit(false);
      DSLContext first = DSL.using(connection, db.dialect());
      outbox.message("order-1", "order.placed", Map.of("n", 1)).id("caller-1").write(first);

      LockWait lockWait = LockWait.behind(db, connection);

      // The second writer reads before the first commits, so on MariaDB its snapshot predates
      // that commit. (On SQLite a transaction that read cannot wait for the write lock: there
      // it writes at once.)
      Future<String> second =
          other.submit(
              () ->
                  lockWait.inWaitingTransaction(
                      db.dsl(),
                      tx -> {
                        if (db.kind() != TestDatabase.Kind.SQLITE) {
                          tx.fetchCount(ORDERS);
                        }
                        String id =
                            outbox
                                .message("order-1", "order.placed", Map.of("n", 1))
                                .id("caller-1")
                                .write(tx);
                        insertOrder(tx, "o-second");
                        return id;
                      }));
      // Commit only once the second write waits for the first's row (or SQLite's write lock).
      lockWait.awaitBlocked(Duration.ofSeconds(30));
      connection.commit();
      connection.setAutoCommit(true);

      assertThat(second.get(30, TimeUnit.SECONDS)).isEqualTo("caller-1");
    } finally {
      other.shutdownNow();
    }
    assertThat(outboxCount()).isEqualTo(1);
    assertThat(orderIds()).containsExactly("o-second");
  }

  @Test
  void sameIdWrittenConcurrentlyAfterARollbackIsWrittenByTheSecond() throws Exception {
    ExecutorService other = Executors.newSingleThreadExecutor();
    try (Connection connection = db.dataSource().getConnection()) {
      connection.setAutoCommit(false);
      DSLContext first = DSL.using(connection, db.dialect());
      outbox.message("order-1", "order.placed", Map.of("n", 1)).id("caller-1").write(first);

      LockWait lockWait = LockWait.behind(db, connection);

      Future<String> second =
          other.submit(
              () ->
                  lockWait.inWaitingTransaction(
                      db.dsl(),
                      tx ->
                          outbox
                              .message("order-1", "order.placed", Map.of("n", 2))
                              .id("caller-1")
                              .write(tx)));
      lockWait.awaitBlocked(Duration.ofSeconds(30));
      connection.rollback();
      connection.setAutoCommit(true);

      assertThat(second.get(30, TimeUnit.SECONDS)).isEqualTo("caller-1");
    } finally {
      other.shutdownNow();
    }
    assertThat(readTree(onlyRow().payloadJson())).isEqualTo(readTree("{\"n\":2}"));
  }

  @Test
  void sameIdWithOtherContentIsRefused() {
    db.dsl()
        .transaction(
            tx ->
                outbox
                    .message("order-1", "order.placed", Map.of("n", 1))
                    .id("caller-1")
                    .header("h", "v")
                    .write(tx.dsl()));
    StoredMessages.Stored first = onlyRow();

    List<Function<DSLContext, String>> others =
        List.of(
            tx ->
                outbox
                    .message("order-1", "order.placed", Map.of("n", 2))
                    .id("caller-1")
                    .header("h", "v")
                    .write(tx),
            tx ->
                outbox
                    .message("order-2", "order.placed", Map.of("n", 1))
                    .id("caller-1")
                    .header("h", "v")
                    .write(tx),
            tx ->
                outbox
                    .message("order-1", "order.cancelled", Map.of("n", 1))
                    .id("caller-1")
                    .header("h", "v")
                    .write(tx),
            tx ->
                outbox
                    .message("order-1", "order.placed", Map.of("n", 1))
                    .id("caller-1")
                    .header("h", "other")
                    .write(tx),
            tx ->
                outbox.message("order-1", "order.placed", Map.of("n", 1)).id("caller-1").write(tx));
    for (Function<DSLContext, String> other : others) {
      Throwable thrown =
          inTransactionThatGoesOn(
              tx -> {
                other.apply(tx);
                return null;
              });
      assertThat(thrown)
          .isInstanceOf(DuplicateMessageException.class)
          .hasMessage("message id \"caller-1\" is already stored with other content");
      assertThat(((DuplicateMessageException) thrown).messageId()).isEqualTo("caller-1");
      assertThat(onlyRow()).isEqualTo(first);
    }
  }

  // ---------------------------------------------------------------- what is stored

  @Test
  void delayAndAvailableAtSetWhenTheMessageIsDue() {
    Instant at = Instant.parse("2026-03-02T00:00:00.123Z");
    db.dsl()
        .transaction(
            tx -> {
              outbox
                  .message("a", "t", Map.of())
                  .id("delayed")
                  .delay(Duration.ofMinutes(5))
                  .write(tx.dsl());
              outbox.message("a", "t", Map.of()).id("at").availableAt(at).write(tx.dsl());
              // The last of delay and availableAt wins.
              outbox
                  .message("a", "t", Map.of())
                  .id("at-then-delay")
                  .availableAt(at)
                  .delay(Duration.ofSeconds(1))
                  .write(tx.dsl());
            });

    assertThat(row("delayed").availableAt()).isEqualTo(START.plus(Duration.ofMinutes(5)));
    assertThat(row("at").availableAt()).isEqualTo(at);
    assertThat(row("at-then-delay").availableAt()).isEqualTo(START.plusSeconds(1));
    assertThat(row("delayed").createdAt()).isEqualTo(START);
  }

  @Test
  void everyPayloadFormStoresTheSameJson() {
    ObjectMapper mapper = new ObjectMapper();
    ObjectNode tree = mapper.createObjectNode().put("orderId", "o-1").put("amount", 12);
    db.dsl()
        .transaction(
            tx -> {
              outbox.message("a", "t", new OrderPlaced("o-1", 12)).id("pojo").write(tx.dsl());
              outbox.message("a", "t", tree).id("tree").write(tx.dsl());
              outbox
                  .message("a", "t", "{\"orderId\":\"o-1\",\"amount\":12}")
                  .id("text")
                  .write(tx.dsl());
              outbox.message("a", "t", "[1,2.5,null,true]").id("array").write(tx.dsl());
            });

    for (String id : List.of("pojo", "tree", "text")) {
      assertThat(readTree(row(id).payloadJson())).as(id).isEqualTo(tree);
    }
    assertThat(readTree(row("array").payloadJson())).isEqualTo(readTree("[1,2.5,null,true]"));
  }

  @Test
  void headersPayloadAndUnicodeRoundTripToTheRelay() {
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("traceparent", "00-abc-def-01");
    headers.put("tenant", "ünïcødé 🎉");
    headers.put("empty", "");
    db.dsl()
        .transaction(
            tx -> {
              outbox
                  .message("aggregate-é", "order.placed", new OrderPlaced("o-🎉", 7))
                  .headers(headers)
                  .write(tx.dsl());
              outbox.write(tx.dsl(), "aggregate-2", "order.placed", Map.of("n", 1));
            });

    List<OutboxMessage> claimed = delivered();

    assertThat(claimed).hasSize(2);
    OutboxMessage withHeaders = claimed.get(0);
    assertThat(withHeaders.aggregate()).isEqualTo("aggregate-é");
    assertThat(withHeaders.headers()).isEqualTo(headers);
    assertThat(withHeaders.payloadAs(OrderPlaced.class)).isEqualTo(new OrderPlaced("o-🎉", 7));
    assertThat(withHeaders.payload().get("orderId").asText()).isEqualTo("o-🎉");
    assertThat(withHeaders.createdAt()).isEqualTo(START);
    assertThat(withHeaders.attempt()).isEqualTo(1);
    assertThat(claimed.get(1).headers()).isEmpty();
  }

  @Test
  void toStringLeavesOutThePayloadAndPayloadAsReportsAMismatch() {
    db.dsl()
        .transaction(
            tx ->
                outbox
                    .message("order-1", "order.placed", Map.of("secret", "card-4111111111111111"))
                    .header("h", "v")
                    .write(tx.dsl()));
    OutboxMessage message = delivered().get(0);

    assertThat(message.toString())
        .contains(message.id(), "order-1", "order.placed")
        .doesNotContain("secret")
        .doesNotContain("4111111111111111");
    assertThatThrownBy(() -> message.payloadAs(Integer.class))
        .isInstanceOf(OutboxException.class)
        .hasMessageContaining(message.id())
        .hasMessageNotContaining("4111111111111111");
  }

  @Test
  void idsComeFromTheSupplierOrAreTimeOrderedUuids() {
    Outbox fixed =
        Outbox.builder(db.dsl())
            .clock(clock)
            .idSupplier(
                new java.util.function.Supplier<>() {
                  int next;

                  @Override
                  public String get() {
                    return "id-" + next++;
                  }
                })
            .build();
    List<String> generated = new ArrayList<>();
    db.dsl()
        .transaction(
            tx -> {
              assertThat(fixed.write(tx.dsl(), "a", "t", Map.of())).isEqualTo("id-0");
              assertThat(fixed.write(tx.dsl(), "a", "t", Map.of())).isEqualTo("id-1");
              generated.add(outbox.write(tx.dsl(), "a", "t", Map.of()));
              clock.advance(Duration.ofMillis(1));
              generated.add(outbox.write(tx.dsl(), "a", "t", Map.of()));
            });

    UUID first = UUID.fromString(generated.get(0));
    UUID second = UUID.fromString(generated.get(1));
    assertThat(first.version()).isEqualTo(7);
    assertThat(first.getMostSignificantBits() >>> 16).isEqualTo(START.toEpochMilli());
    assertThat(generated.get(0)).isLessThan(generated.get(1));
    assertThat(second.version()).isEqualTo(7);
    assertThat(outboxCount()).isEqualTo(4);
  }

  // ---------------------------------------------------------------- helpers

  /**
   * Runs a refused write inside a transaction that then inserts a business row and commits: the
   * refusal must leave nothing in the outbox and the transaction usable.
   */
  private void assertRefused(
      Class<? extends OutboxException> type, String argument, Function<DSLContext, ?> write) {
    long before = outboxCount();
    Throwable thrown = inTransactionThatGoesOn(write);
    assertThat(thrown).as("refusal for argument %s", argument).isInstanceOf(type);
    if (thrown instanceof InvalidMessageException invalid) {
      assertThat(invalid.argument()).isEqualTo(argument);
      assertThat(invalid.getMessage()).startsWith(argument + " ");
    }
    assertThat(outboxCount()).as("outbox rows after a refused %s", argument).isEqualTo(before);
  }

  /**
   * Runs {@code write} in a transaction, catches what it throws, inserts a business row in the same
   * transaction and commits; returns what was thrown (null when nothing).
   */
  private Throwable inTransactionThatGoesOn(Function<DSLContext, ?> write) {
    String orderId = "o-" + UUID.randomUUID();
    Throwable[] thrown = new Throwable[1];
    db.dsl()
        .transaction(
            tx -> {
              thrown[0] = catchThrowable(() -> write.apply(tx.dsl()));
              insertOrder(tx.dsl(), orderId);
            });
    assertThat(orderIds())
        .as("the caller's transaction committed after the refusal")
        .contains(orderId);
    return thrown[0];
  }

  private void insertOrder(DSLContext tx, String id) {
    tx.insertInto(ORDERS).set(ORDER_ID, id).execute();
  }

  private List<String> orderIds() {
    return db.dsl().select(ORDER_ID).from(ORDERS).orderBy(ORDER_ID).fetch(ORDER_ID);
  }

  /** What a relay of topic order.placed hands its handler, in order, one handler thread. */
  private List<OutboxMessage> delivered() {
    List<OutboxMessage> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
    try (dev.jooqoutbox.relay.OutboxRelay relay =
        dev.jooqoutbox.relay.OutboxRelay.builder(db.dsl())
            .clock(clock)
            .listen(false)
            .handlerConcurrency(1)
            .handler("order.placed", seen::add)
            .build()) {
      relay.drainOnce(10);
    }
    return seen;
  }

  /** How many messages the outbox stores, wherever (the event log on PostgreSQL). */
  private int outboxCount() {
    return StoredMessages.of(db.dsl(), clock).count();
  }

  private StoredMessages.Stored onlyRow() {
    return StoredMessages.of(db.dsl(), clock).only();
  }

  private StoredMessages.Stored row(String id) {
    return StoredMessages.of(db.dsl(), clock).byId(id);
  }

  private static com.fasterxml.jackson.databind.JsonNode readTree(String json) {
    try {
      return new ObjectMapper().readTree(json);
    } catch (Exception e) {
      throw new AssertionError("not JSON: " + json, e);
    }
  }

  record OrderPlaced(String orderId, int amount) {}

  /** A bean Jackson follows round a cycle. */
  static final class Node {
    public Node next;
  }

  /** A bean whose getter throws while Jackson serializes it. */
  static final class Throws {
    public String getValue() {
      throw new IllegalStateException("cannot read value");
    }
  }
}
