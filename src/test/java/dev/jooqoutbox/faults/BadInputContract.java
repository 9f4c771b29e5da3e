package dev.jooqoutbox.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.table;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.jooqoutbox.DuplicateMessageException;
import dev.jooqoutbox.InvalidMessageException;
import dev.jooqoutbox.NoTransactionException;
import dev.jooqoutbox.Outbox;
import dev.jooqoutbox.OutboxException;
import dev.jooqoutbox.testing.DatabaseFixture;
import dev.jooqoutbox.testing.StoredMessages;
import dev.jooqoutbox.testing.TestDatabase;
import java.math.BigDecimal;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Bad input to the write API, the way a careless caller sends it. Every refusal is one of our
 * exceptions naming the argument, writes nothing, and leaves the caller's transaction usable: the
 * test goes on in the same transaction, inserts a business row and commits.
 *
 * <p>{@code OutboxWriteContract} checks each rule one by one; this test runs the whole catalogue of
 * the fault issue through one harness, plus the misuse cases (autocommit, a transaction that
 * already ended). {@link WriteApiProperties} throws random input at the same API.
 */
abstract class BadInputContract extends DatabaseFixture {

  private static final Table<Record> BUSINESS = table(name("fault_business_row"));
  private static final Field<String> BUSINESS_ID =
      field(name("business_id"), SQLDataType.VARCHAR(64));

  private Outbox outbox;

  BadInputContract(TestDatabase.Kind kind) {
    super(kind);
  }

  @BeforeAll
  void setUpOnce() {
    Faults.quietLogs();
    db.dsl()
        .createTable(BUSINESS)
        .column(BUSINESS_ID, SQLDataType.VARCHAR(64).nullable(false))
        .constraints(DSL.primaryKey(BUSINESS_ID))
        .execute();
    outbox = Outbox.builder(db.dsl()).maxPayloadBytes(1000).build();
  }

  private record Case(String what, String argument, Function<DSLContext, ?> write) {}

  @Test
  void everyBadArgumentIsRefusedByNameWithNothingWrittenAndTheTransactionGoesOn() {
    List<Case> cases = new ArrayList<>();
    for (String bad : badTexts()) {
      cases.add(new Case("aggregate " + show(bad), "aggregate", tx -> write(tx, bad, "t", "{}")));
      cases.add(new Case("topic " + show(bad), "topic", tx -> write(tx, "a", bad, "{}")));
      cases.add(
          new Case(
              "id " + show(bad), "id", tx -> outbox.message("a", "t", "{}").id(bad).write(tx)));
      cases.add(
          new Case(
              "header name " + show(bad),
              "header name",
              tx -> outbox.message("a", "t", "{}").header(bad, "v").write(tx)));
    }
    for (String badTopic :
        List.of("a b", "a/b", "a;b", "a'b", "a\"b", "ä", "a\tb", "a\nb", "DROP TABLE x;")) {
      cases.add(new Case("topic " + show(badTopic), "topic", tx -> write(tx, "a", badTopic, "{}")));
    }
    cases.add(
        new Case(
            "header value over 8192 characters",
            "header h",
            tx -> outbox.message("a", "t", "{}").header("h", "v".repeat(8193)).write(tx)));
    cases.add(
        new Case(
            "header value with NUL",
            "header h",
            tx -> outbox.message("a", "t", "{}").header("h", "a\0b").write(tx)));
    cases.add(
        new Case(
            "null header value",
            "header h",
            tx -> outbox.message("a", "t", "{}").header("h", null).write(tx)));
    cases.add(
        new Case(
            "null headers map",
            "headers",
            tx -> outbox.message("a", "t", "{}").headers(null).write(tx)));
    Map<String, String> tooMany = new HashMap<>();
    for (int i = 0; i < 65; i++) {
      tooMany.put("h" + i, "v");
    }
    cases.add(
        new Case(
            "65 headers",
            "headers",
            tx -> outbox.message("a", "t", "{}").headers(tooMany).write(tx)));
    cases.add(
        new Case(
            "negative delay",
            "delay",
            tx -> outbox.message("a", "t", "{}").delay(Duration.ofMillis(-1)).write(tx)));

    cases.add(new Case("null payload", "payload", tx -> write(tx, "a", "t", null)));
    cases.add(new Case("empty bean payload", "payload", tx -> write(tx, "a", "t", new Object())));
    cases.add(new Case("cyclic payload", "payload", tx -> write(tx, "a", "t", cycle())));
    Map<String, Object> selfContaining = new HashMap<>();
    selfContaining.put("self", selfContaining);
    cases.add(
        new Case("self-containing map", "payload", tx -> write(tx, "a", "t", selfContaining)));
    cases.add(new Case("getter that throws", "payload", tx -> write(tx, "a", "t", new Throws())));
    for (String text : List.of("", " ", "{", "{\"a\":1}x", "'single'", "NaN", "{a:1}")) {
      cases.add(new Case("payload text " + show(text), "payload", tx -> write(tx, "a", "t", text)));
    }
    cases.add(
        new Case(
            "payload over the limit",
            "payload",
            tx -> write(tx, "a", "t", Map.of("t", "x".repeat(1000)))));
    cases.add(
        new Case(
            "payload over the limit in UTF-8 bytes, not characters",
            "payload",
            tx -> write(tx, "a", "t", Map.of("t", "é".repeat(500)))));
    cases.add(
        new Case(
            "JsonNode with a lone surrogate",
            "payload",
            tx -> write(tx, "a", "t", JsonNodeFactory.instance.textNode("x\uD800"))));
    for (String text :
        List.of("1e200000", "[1, -1E-20000]", "{\"n\": 1.5e+131072}", "1e1000", "-1e-1000")) {
      cases.add(
          new Case(
              "payload number PostgreSQL cannot hold " + text,
              "payload",
              tx -> write(tx, "a", "t", text)));
    }
    cases.add(
        new Case(
            "payload object with a number PostgreSQL cannot hold",
            "payload",
            tx -> write(tx, "a", "t", Map.of("n", new BigDecimal("1e200000")))));
    cases.add(
        new Case(
            "payload text with an escaped NUL",
            "payload",
            tx -> write(tx, "a", "t", "{\"t\":\"\\u0000\"}")));

    for (Case c : cases) {
      assertRefusedAndTransactionGoesOn(c);
    }
    assertThat(stored()).isZero();
    assertThat(db.dsl().fetchCount(BUSINESS)).isEqualTo(cases.size());
  }

  @Test
  void numbersAtTheEdgeOfWhatEveryDialectHoldsAreStoredExactly() throws Exception {
    var exact =
        new com.fasterxml.jackson.databind.ObjectMapper()
            .reader()
            .with(com.fasterxml.jackson.databind.DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
    for (String text :
        List.of("1e400", "-1e-400", "123456789012345678901234567890.5", "[1e999, 1.5e-998]")) {
      String id = db.dsl().transactionResult(tx -> write(tx.dsl(), "a", "t", text));
      // As stored: its row of outbox_message, or on PostgreSQL its message of the event log.
      String stored = StoredMessages.of(db.dsl()).byId(id).payloadJson();
      assertThat(exact.readTree(stored).equals(Faults.NUMBERS_BY_VALUE, exact.readTree(text)))
          .as("stored %s as %s", text, stored.length() > 60 ? stored.substring(0, 60) : stored)
          .isTrue();
    }
  }

  @Test
  void sameIdWithOtherContentIsRefusedAndTheTransactionGoesOn() throws Exception {
    db.dsl().transaction(tx -> outbox.message("a", "t", "{\"v\":1}").id("fixed").write(tx.dsl()));
    Throwable thrown =
        inTransactionThatGoesOn(tx -> outbox.message("a", "t", "{\"v\":2}").id("fixed").write(tx));
    assertThat(thrown).isInstanceOf(DuplicateMessageException.class);
    assertThat(((DuplicateMessageException) thrown).messageId()).isEqualTo("fixed");
    assertThat(stored()).isEqualTo(1);
    var mapper = new com.fasterxml.jackson.databind.ObjectMapper();
    assertThat(mapper.readTree(StoredMessages.of(db.dsl()).byId("fixed").payloadJson()))
        .as("the first content stays")
        .isEqualTo(mapper.readTree("{\"v\":1}"));
  }

  @Test
  void writeOnAnAutocommitConnectionIsRefusedAndWritesNothing() throws Exception {
    assertThat(catchThrowable(() -> outbox.write("a", "t", "{}")))
        .as("the bound context outside any transaction")
        .isInstanceOf(NoTransactionException.class)
        .hasMessageContaining("autocommit");
    try (Connection connection = db.dataSource().getConnection()) {
      assertThat(connection.getAutoCommit()).isTrue();
      DSLContext autocommit = DSL.using(connection, db.dialect());
      assertThat(catchThrowable(() -> outbox.write(autocommit, "a", "t", "{}")))
          .isInstanceOf(NoTransactionException.class);
    }
    assertThat(stored()).isZero();
  }

  @Test
  void writeAfterTheTransactionRolledBackIsRefusedAndWritesNothing() {
    DSLContext[] ended = new DSLContext[1];
    Throwable rolledBack =
        catchThrowable(
            () ->
                db.dsl()
                    .transaction(
                        tx -> {
                          ended[0] = tx.dsl();
                          write(tx.dsl(), "a", "t", "{\"in\":\"the rolled back transaction\"}");
                          throw new IllegalStateException("business rule failed");
                        }));
    assertThat(rolledBack).hasMessage("business rule failed");

    // A context kept past its transaction: the write must not commit on its own.
    Throwable thrown = catchThrowable(() -> write(ended[0], "a", "t", "{\"after\":true}"));
    assertThat(thrown).isInstanceOf(NoTransactionException.class);
    assertThat(stored()).isZero();
  }

  private void assertRefusedAndTransactionGoesOn(Case c) {
    long before = stored();
    Throwable thrown = inTransactionThatGoesOn(c.write());
    assertThat(thrown).as(c.what()).isInstanceOf(InvalidMessageException.class);
    InvalidMessageException invalid = (InvalidMessageException) thrown;
    assertThat(invalid.argument()).as("argument named for %s", c.what()).isEqualTo(c.argument());
    assertThat(invalid.getMessage()).as(c.what()).startsWith(c.argument() + " ");
    assertThat(stored()).as("messages after %s", c.what()).isEqualTo(before);
  }

  /** Runs {@code write} in a transaction that then inserts a business row and commits. */
  private Throwable inTransactionThatGoesOn(Function<DSLContext, ?> write) {
    String businessId = UUID.randomUUID().toString();
    Throwable[] thrown = new Throwable[1];
    db.dsl()
        .transaction(
            tx -> {
              thrown[0] = catchThrowable(() -> write.apply(tx.dsl()));
              assertThat(thrown[0]).isInstanceOf(OutboxException.class);
              tx.dsl().insertInto(BUSINESS).set(BUSINESS_ID, businessId).execute();
            });
    assertThat(db.dsl().fetchCount(BUSINESS, BUSINESS_ID.eq(businessId)))
        .as("the caller's transaction committed after the refusal")
        .isEqualTo(1);
    return thrown[0];
  }

  /**
   * How many messages are stored, wherever: the rows of outbox_message and, on PostgreSQL, the
   * messages of the event log (a raw count of both tables, no relay involved).
   */
  private long stored() {
    return StoredMessages.of(db.dsl()).keys().size();
  }

  private String write(DSLContext tx, String aggregate, String topic, Object payload) {
    return outbox.write(tx, aggregate, topic, payload);
  }

  /** Null, empty, over-long and unstorable texts: refused for every key argument. */
  private static List<String> badTexts() {
    List<String> texts = new ArrayList<>();
    texts.add(null);
    texts.add("");
    texts.add("x".repeat(256));
    texts.add("é".repeat(256));
    texts.add("nul\0inside");
    texts.add("lone \uD800 high");
    texts.add("lone \uDC00 low");
    texts.add("reversed pair \uDE00\uD83D");
    return texts;
  }

  private static String show(String text) {
    if (text == null) {
      return "null";
    }
    String shown = text.length() > 20 ? text.substring(0, 20) + "…(" + text.length() + ")" : text;
    return "\"" + shown.replace("\0", "\\0") + "\"";
  }

  private static Map<String, Object> cycle() {
    Map<String, Object> a = new LinkedHashMap<>();
    Map<String, Object> b = new LinkedHashMap<>();
    a.put("b", b);
    b.put("a", a);
    return a;
  }

  /** A bean whose only property throws when read. */
  public static final class Throws {
    public String getValue() {
      throw new IllegalStateException("cannot read value");
    }
  }
}
