package dev.jooqoutbox.faults;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import dev.jooqoutbox.InvalidMessageException;
import dev.jooqoutbox.Outbox;
import dev.jooqoutbox.OutboxException;
import dev.jooqoutbox.internal.eventlog.EventWriter;
import dev.jooqoutbox.internal.repository.JooqOutboxRepository;
import dev.jooqoutbox.internal.repository.NewMessage;
import dev.jooqoutbox.testing.StoredMessages;
import dev.jooqoutbox.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.statistics.StatisticsCoverage;
import org.jooq.DSLContext;

/**
 * Random input at the write API: texts with quotes, NUL, lone and paired surrogates, unicode and
 * lengths around the limits for aggregate, topic, id and headers; payloads that are random text,
 * generated JSON (numbers beyond a double's range and precision included), objects, and sizes
 * around the limit. Every write either stores exactly what was given (read back and compared) or
 * throws an {@link OutboxException} and writes nothing; anything else fails the property.
 *
 * <p>One database per dialect for the whole class: the tries share it (ids may collide on purpose;
 * the idempotency rules then apply).
 */
class WriteApiPropertyTest {

  private static final int MAX_PAYLOAD_BYTES = 2000;
  private static final ObjectMapper MAPPER = new ObjectMapper();

  /** Reads numbers exactly, so a stored 1e400 or a 30-digit decimal compares as written. */
  private static final ObjectReader EXACT =
      MAPPER.reader().with(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

  private static TestDatabase postgres;
  private static TestDatabase sqlite;

  @BeforeContainer
  static void createDatabases() {
    Faults.quietLogs();
    postgres = TestDatabase.migrated(TestDatabase.Kind.POSTGRES);
    sqlite = TestDatabase.migrated(TestDatabase.Kind.SQLITE);
  }

  @AfterContainer
  static void dropDatabases() {
    postgres.close();
    sqlite.close();
  }

  // No generated edge cases: jqwik mixes so many of them into 200 tries that one value of one
  // argument dominates; the generators below weight their own edge cases (empty, 255/256 long,
  // NUL, lone surrogates, 64/65 headers, the payload limit).
  @Property(tries = 200, shrinking = ShrinkingMode.BOUNDED, edgeCases = EdgeCasesMode.NONE)
  void postgresStoresExactlyWhatWasGivenOrRefuses(@ForAll("writes") Write write) {
    storesExactlyOrRefuses(postgres, write);
    Statistics.coverage(STORES_OFTEN);
  }

  // No generated edge cases: jqwik mixes so many of them into 200 tries that one value of one
  // argument dominates; the generators below weight their own edge cases (empty, 255/256 long,
  // NUL, lone surrogates, 64/65 headers, the payload limit).
  @Property(tries = 200, shrinking = ShrinkingMode.BOUNDED, edgeCases = EdgeCasesMode.NONE)
  void sqliteStoresExactlyWhatWasGivenOrRefuses(@ForAll("writes") Write write) {
    storesExactlyOrRefuses(sqlite, write);
    Statistics.coverage(STORES_OFTEN);
  }

  /** A property that refused almost everything would prove little about what it stores. */
  private static final Consumer<StatisticsCoverage> STORES_OFTEN =
      coverage -> coverage.check("stored").percentage(p -> p >= 30);

  private static void storesExactlyOrRefuses(TestDatabase db, Write w) {
    DSLContext dsl = db.dsl();
    Outbox outbox = Outbox.builder(dsl).maxPayloadBytes(MAX_PAYLOAD_BYTES).build();
    StoredMessages messages = StoredMessages.of(dsl);
    int before = messages.count();
    String id;
    try {
      id =
          dsl.transactionResult(
              tx -> {
                Outbox.MessageWrite message = outbox.message(w.aggregate(), w.topic(), w.payload());
                if (w.idGiven()) {
                  message.id(w.id());
                }
                return message.headers(w.headers()).write(tx.dsl());
              });
    } catch (OutboxException refused) {
      assertThat(messages.count()).as("messages after a refusal").isEqualTo(before);
      Statistics.collect(
          refused instanceof InvalidMessageException invalid
              ? "refused: " + invalid.argument().replaceFirst("(?s)^header .*", "header value")
              : "refused: " + refused.getClass().getSimpleName());
      return;
    } catch (Throwable other) {
      throw new AssertionError(
          "neither stored nor refused with an OutboxException: " + other, other);
    }
    JooqOutboxRepository repository = new JooqOutboxRepository(dsl);
    // On PostgreSQL the message is an event of the log (ADR 0001), elsewhere a row.
    NewMessage stored =
        (repository.appendsEvents()
                ? new EventWriter(repository).findStored(dsl, id)
                : repository.findStored(dsl, id))
            .orElseThrow(AssertionError::new);
    if (w.idGiven()) {
      assertThat(id).isEqualTo(w.id());
    }
    assertThat(stored.aggregate()).isEqualTo(w.aggregate());
    assertThat(stored.topic()).isEqualTo(w.topic());
    assertThat(stored.headers()).isEqualTo(w.headers());
    JsonNode expected = expectedPayload(w.payload());
    JsonNode actual = exact(stored.payloadJson());
    assertThat(expected.equals(Faults.NUMBERS_BY_VALUE, actual))
        .as("stored payload %s equals the given %s", actual, expected)
        .isTrue();
    Statistics.collect("stored");
  }

  private static JsonNode expectedPayload(Object payload) {
    return payload instanceof String text ? exact(text) : MAPPER.valueToTree(payload);
  }

  private static JsonNode exact(String json) {
    try {
      return EXACT.readTree(json);
    } catch (Exception e) {
      throw new AssertionError("not JSON: " + json, e);
    }
  }

  // ---------------------------------------------------------------- generators

  /** One call of the write API. {@code idGiven} false: the outbox generates the id. */
  record Write(
      String aggregate,
      String topic,
      boolean idGiven,
      String id,
      Map<String, String> headers,
      Object payload) {

    @Override
    public String toString() {
      return "Write[aggregate="
          + show(aggregate)
          + ", topic="
          + show(topic)
          + ", id="
          + (idGiven ? show(id) : "(generated)")
          + ", headers="
          + headers.entrySet().stream()
              .map(e -> show(e.getKey()) + "=" + show(e.getValue()))
              .toList()
          + ", payload="
          + (payload instanceof String s ? "text " + show(s) : String.valueOf(payload))
          + "]";
    }
  }

  @Provide
  Arbitrary<Write> writes() {
    return Combinators.combine(
            texts(), topics(), Arbitraries.of(true, false), ids(), headers(), payloads())
        .as(Write::new);
  }

  /**
   * Storable but hostile text: controls (no NUL), quotes, SQL punctuation, accents, CJK, and emoji
   * (surrogate pairs, combining marks, a BOM, a line separator).
   */
  private static Arbitrary<String> clean(int minLength, int maxLength) {
    Arbitrary<String> chars =
        Arbitraries.strings()
            .withCharRange('\u0001', '\u007f')
            .withCharRange('\u00a0', '\u07ff')
            .withCharRange('\u4e00', '\u4e3f')
            .withChars("'\"`;\\%_-$*/")
            .ofMinLength(minLength)
            .ofMaxLength(maxLength);
    Arbitrary<String> emoji =
        Arbitraries.of("😀", "🙏", "e\u0301", "Ω", "ß", "\u2028", "\ufeff", "'); --")
            .list()
            .ofMaxSize(3)
            .map(parts -> String.join("", parts));
    return Combinators.combine(chars, emoji, Arbitraries.integers().between(0, maxLength))
        .as(
            (text, extra, at) -> {
              String joined =
                  text.substring(0, Math.min(at, text.length()))
                      + extra
                      + text.substring(Math.min(at, text.length()));
              return joined.length() <= maxLength ? joined : text;
            });
  }

  /**
   * Text every rule refuses for a key: null, empty, too long, NUL, a lone or reversed surrogate.
   */
  private static Arbitrary<String> broken() {
    return Arbitraries.oneOf(
        Arbitraries.just(""),
        clean(256, 300),
        Combinators.combine(
                clean(0, 20),
                Arbitraries.of("\0", "\uD800", "\uDC00", "\uDE00\uD83D", "x\uD83D"),
                clean(0, 20))
            .as((a, bad, b) -> a + bad + b));
  }

  @SuppressWarnings("unchecked")
  private static Arbitrary<String> texts() {
    return Arbitraries.frequencyOf(
            Tuple.of(12, clean(1, 40)),
            Tuple.of(1, clean(250, 255)),
            Tuple.of(1, Arbitraries.strings().alpha().ofLength(255)),
            Tuple.of(2, broken()))
        .injectNull(0.02);
  }

  /** Caller ids: a null id is the bad-input test's business, "no id" is {@code idGiven} false. */
  @SuppressWarnings("unchecked")
  private static Arbitrary<String> ids() {
    return Arbitraries.frequencyOf(
        Tuple.of(12, clean(1, 40)), Tuple.of(1, clean(250, 255)), Tuple.of(2, broken()));
  }

  @SuppressWarnings("unchecked")
  private static Arbitrary<String> topics() {
    Arbitrary<String> wellFormed =
        Arbitraries.strings().withChars("abcXYZ0189._:-").ofMinLength(1).ofMaxLength(40);
    Arbitrary<String> longWellFormed =
        Arbitraries.strings().withChars("ab.:_-").ofMinLength(250).ofMaxLength(256);
    return Arbitraries.frequencyOf(
        Tuple.of(12, wellFormed), Tuple.of(1, longWellFormed), Tuple.of(2, texts()));
  }

  @SuppressWarnings("unchecked")
  private static Arbitrary<Map<String, String>> headers() {
    Arbitrary<Map<String, String>> few =
        Arbitraries.maps(clean(1, 20), clean(0, 30)).ofMaxSize(4).map(LinkedHashMap::new);
    Arbitrary<Map<String, String>> brokenEntry =
        Combinators.combine(
                Arbitraries.oneOf(clean(1, 20), broken()),
                Arbitraries.oneOf(clean(0, 30), broken()).injectNull(0.2))
            .as(
                (k, v) -> {
                  Map<String, String> map = new LinkedHashMap<>();
                  map.put(k, v);
                  return map;
                });
    Arbitrary<Map<String, String>> many =
        Arbitraries.maps(Arbitraries.strings().alpha().ofLength(6), Arbitraries.just("v"))
            .ofMinSize(62)
            .ofMaxSize(66)
            .map(LinkedHashMap::new);
    Arbitrary<Map<String, String>> longValue =
        Arbitraries.strings()
            .alpha()
            .ofMinLength(8190)
            .ofMaxLength(8194)
            .map(
                v -> {
                  Map<String, String> map = new LinkedHashMap<>();
                  map.put("long", v);
                  return map;
                });
    return Arbitraries.frequencyOf(
        Tuple.of(12, few), Tuple.of(2, brokenEntry), Tuple.of(1, many), Tuple.of(1, longValue));
  }

  @SuppressWarnings("unchecked")
  private static Arbitrary<Object> payloads() {
    Arbitrary<Object> randomText = Arbitraries.oneOf(clean(1, 40), broken()).map(s -> s);
    Arbitrary<Object> jsonText = json(3, clean(0, 12)).map(s -> s);
    Arbitrary<Object> brokenJson = json(2, Arbitraries.oneOf(clean(0, 12), broken())).map(s -> s);
    Arbitrary<Object> object =
        Arbitraries.maps(clean(0, 10), clean(0, 30)).ofMaxSize(4).map(LinkedHashMap::new);
    Arbitrary<Object> sized =
        Arbitraries.integers()
            .between(MAX_PAYLOAD_BYTES - 30, MAX_PAYLOAD_BYTES + 10)
            .flatMap(
                n ->
                    Arbitraries.of("x", "é", "中", "😀")
                        .map(
                            c ->
                                Map.of(
                                    "t",
                                    c.repeat(
                                        (n - 8) / c.getBytes(StandardCharsets.UTF_8).length))));
    return Arbitraries.frequencyOf(
        Tuple.of(2, randomText),
        Tuple.of(6, jsonText),
        Tuple.of(1, brokenJson),
        Tuple.of(3, object),
        Tuple.of(1, sized));
  }

  /**
   * JSON texts, written by hand: odd spacing, escapes, and numbers a double cannot hold (beyond its
   * range or its precision), with the strings {@code strings} gives.
   */
  private static Arbitrary<String> json(int depth, Arbitrary<String> strings) {
    Arbitrary<String> numbers =
        Arbitraries.oneOf(
            Arbitraries.integers().map(String::valueOf),
            Arbitraries.longs().map(String::valueOf),
            Arbitraries.of(
                "0",
                "-0",
                "-0.0",
                "0.1",
                "1e2",
                "1E-7",
                "2.5e+3",
                "1e400",
                "-1e400",
                "1e-400",
                "123456789012345678901234567890",
                "123456789012345678901234567890.5",
                "0.30000000000000004",
                "9007199254740993.0"));
    Arbitrary<String> literals = strings.map(WriteApiPropertyTest::jsonString);
    Arbitrary<String> escapes =
        Arbitraries.of("\"\\u00e9\"", "\"\\ud83d\\ude00\"", "\"\\\"\\\\\\/\"", "\"\\t\\n\"");
    Arbitrary<String> scalars =
        Arbitraries.oneOf(numbers, literals, escapes, Arbitraries.of("true", "false", "null"));
    if (depth == 0) {
      return scalars;
    }
    Arbitrary<String> inner = json(depth - 1, strings);
    Arbitrary<String> array =
        inner.list().ofMaxSize(3).map(items -> "[" + String.join(", ", items) + "]");
    Arbitrary<String> object =
        Combinators.combine(literals, inner)
            .as((k, v) -> k + ":" + v)
            .list()
            .ofMaxSize(3)
            .map(fields -> "{ " + String.join(",", fields) + " }");
    return Arbitraries.oneOf(scalars, array, object);
  }

  /** A JSON string literal of {@code s}, escaping only what JSON requires. */
  private static String jsonString(String s) {
    StringBuilder out = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"').toString();
  }

  private static String show(String s) {
    if (s == null) {
      return "null";
    }
    StringBuilder out = new StringBuilder("\"");
    int shown = Math.min(s.length(), 40);
    for (int i = 0; i < shown; i++) {
      char c = s.charAt(i);
      if (c < 0x20 || Character.isSurrogate(c) || c == 0x7f) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    if (s.length() > shown) {
      out.append("…(").append(s.length()).append(" chars)");
    }
    return out.append('"').toString();
  }
}
