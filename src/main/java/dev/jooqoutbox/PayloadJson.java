package dev.jooqoutbox;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import java.math.BigDecimal;
import java.util.Comparator;
import java.util.regex.Pattern;

/**
 * Turns a payload into the JSON text the outbox stores, refusing what could not be stored and read
 * back verbatim on every dialect, and compares stored payloads for the idempotent write.
 */
final class PayloadJson {

  private final ObjectMapper mapper;
  private final ObjectReader strictReader;
  private final int maxPayloadBytes;

  PayloadJson(ObjectMapper mapper, int maxPayloadBytes) {
    this.mapper = mapper;
    // Floats as BigDecimal: read as doubles, a JSON text's 1e400 would be stored as the string
    // "Infinity" and a 30-digit decimal rounded to 17 digits.
    this.strictReader =
        mapper
            .reader()
            .with(
                DeserializationFeature.FAIL_ON_TRAILING_TOKENS,
                DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
    this.maxPayloadBytes = maxPayloadBytes;
  }

  /**
   * JSON equality with numbers compared by value: PostgreSQL's jsonb gives back what Jackson wrote
   * as {@code 1.0E10} as {@code 10000000000}, and {@code -0.0} as {@code 0.0}.
   */
  private static final Comparator<JsonNode> SAME_VALUE =
      (a, b) -> {
        if (a.isNumber() && b.isNumber()) {
          return a.decimalValue().compareTo(b.decimalValue());
        }
        return a.equals(b) ? 0 : 1;
      };

  /** Whether two JSON texts hold the same value, numbers compared by value. */
  boolean sameValue(String a, String b) {
    return readTree(a).equals(SAME_VALUE, readTree(b));
  }

  private JsonNode readTree(String json) {
    try {
      return strictReader.readTree(json);
    } catch (JsonProcessingException e) {
      throw new OutboxException("stored payload is not valid JSON", e);
    }
  }

  /**
   * {@code payload} as the JSON text to store.
   *
   * @throws InvalidMessageException when it does not serialize, is not a JSON text, is over the
   *     limit, or could not be stored and read back verbatim
   */
  String toJson(Object payload) {
    if (payload == null) {
      throw new InvalidMessageException("payload", "must not be null");
    }
    String json;
    try {
      if (payload instanceof String text) {
        JsonNode tree = strictReader.readTree(text);
        // Jackson reads empty or blank text as a missing node, and would write that as null.
        json = tree.isMissingNode() ? null : mapper.writeValueAsString(tree);
      } else {
        json = mapper.writeValueAsString(payload);
      }
    } catch (JsonProcessingException | RuntimeException e) {
      throw new InvalidMessageException(
          "payload",
          (payload instanceof String ? "is not a JSON text: " : "does not serialize to JSON: ")
              + firstLine(e.getMessage()),
          e);
    } catch (StackOverflowError e) {
      throw new InvalidMessageException("payload", "does not serialize to JSON (a cycle?)", e);
    }
    if (json == null) {
      throw new InvalidMessageException("payload", "is not a JSON text: it is empty or blank");
    }
    long bytes = utf8Length(json);
    if (bytes > maxPayloadBytes) {
      throw new InvalidMessageException(
          "payload", "is " + bytes + " bytes of JSON, over the limit of " + maxPayloadBytes);
    }
    // Jackson writes a lone surrogate as is (the database would store '?' or refuse it) and NUL
    // as an escape (PostgreSQL cannot store it in jsonb); either would not come back verbatim.
    String problem = MessageRules.unstorable(json);
    if (problem == null && json.contains("\\u")) {
      problem = unstorableText(readTree(json));
    }
    if (problem == null && NUMBER_TO_CHECK.matcher(json).find()) {
      try {
        problem = unreadableNumber(readTree(json));
      } catch (OutboxException unreadable) { // a number the mapper wrote but cannot read
        problem = "does not read back as JSON: " + firstLine(unreadable.getCause().getMessage());
      }
    }
    if (problem != null) {
      throw new InvalidMessageException("payload", problem + " (it cannot be stored verbatim)");
    }
    return json;
  }

  /**
   * Where a number may be long once written out in full: an exponent, or a long run of digits. Only
   * then is the payload read again to look at its numbers (the match may be inside a string).
   */
  private static final Pattern NUMBER_TO_CHECK = Pattern.compile("[0-9][eE][+-]?[0-9]|[0-9]{1001}");

  /**
   * Why the first number in {@code node} could not be read back, or null. PostgreSQL's jsonb keeps
   * numbers as numeric and gives them back written out in full ({@code 1e400} as 401 digits), and
   * Jackson refuses to read a number of more digits than its stream constraints allow.
   */
  private String unreadableNumber(JsonNode node) {
    if (node.isNumber()) {
      BigDecimal value = node.decimalValue();
      long digits =
          value.scale() > 0
              ? Math.max(1L, (long) value.precision() - value.scale()) + value.scale()
              : (long) value.precision() - value.scale();
      int max = mapper.getFactory().streamReadConstraints().getMaxNumberLength();
      return digits <= max
          ? null
          : "has a number of "
              + digits
              + " digits written out in full, over the "
              + max
              + " the object mapper reads";
    }
    for (JsonNode child : node) {
      String problem = unreadableNumber(child);
      if (problem != null) {
        return problem;
      }
    }
    return null;
  }

  /** The first text (value or field name) in {@code node} that cannot be stored verbatim. */
  private static String unstorableText(JsonNode node) {
    if (node.isTextual()) {
      return MessageRules.unstorable(node.textValue());
    }
    var names = node.fieldNames();
    while (names.hasNext()) {
      String problem = MessageRules.unstorable(names.next());
      if (problem != null) {
        return problem;
      }
    }
    for (JsonNode child : node) {
      String problem = unstorableText(child);
      if (problem != null) {
        return problem;
      }
    }
    return null;
  }

  private static long utf8Length(String s) {
    long bytes = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        bytes += 1;
      } else if (c < 0x800) {
        bytes += 2;
      } else if (Character.isHighSurrogate(c)) {
        bytes += 4;
        i++;
      } else {
        bytes += 3;
      }
    }
    return bytes;
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "unknown error";
    }
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
