package dev.jooqoutbox;

import java.util.Map;
import java.util.regex.Pattern;

/** The input rules every write obeys; each refusal names the argument. */
final class MessageRules {

  /** Longest id, aggregate and topic, in characters (MariaDB stores them as VARCHAR(255)). */
  static final int MAX_KEY_LENGTH = 255;

  static final int MAX_HEADERS = 64;

  private static final Pattern TOPIC = Pattern.compile("[A-Za-z0-9._:-]+");

  private MessageRules() {}

  static void checkTopic(String topic) {
    checkText("topic", topic, MAX_KEY_LENGTH);
    if (!TOPIC.matcher(topic).matches()) {
      throw new InvalidMessageException(
          "topic", "may contain only A-Z a-z 0-9 . _ : - (was \"" + topic + "\")");
    }
  }

  static void checkAggregate(String aggregate) {
    checkText("aggregate", aggregate, MAX_KEY_LENGTH);
  }

  static void checkId(String id) {
    checkText("id", id, MAX_KEY_LENGTH);
  }

  static void checkHeaders(Map<String, String> headers) {
    if (headers == null) {
      throw new InvalidMessageException("headers", "must not be null");
    }
    if (headers.size() > MAX_HEADERS) {
      throw new InvalidMessageException(
          "headers", "may hold at most " + MAX_HEADERS + " entries, had " + headers.size());
    }
    headers.forEach(
        (name, value) -> {
          checkText("header name", name, MAX_KEY_LENGTH);
          if (value == null) {
            throw new InvalidMessageException("header " + name, "must not have a null value");
          }
          checkText("header " + name, value, 8192, true);
        });
  }

  static void checkText(String argument, String value, int maxLength) {
    checkText(argument, value, maxLength, false);
  }

  /**
   * Text must be storable verbatim on every dialect: PostgreSQL rejects NUL, and a lone UTF-16
   * surrogate has no UTF-8 form, so either would come back different or not at all.
   */
  private static void checkText(String argument, String value, int maxLength, boolean mayBeEmpty) {
    if (value == null) {
      throw new InvalidMessageException(argument, "must not be null");
    }
    if (value.isEmpty() && !mayBeEmpty) {
      throw new InvalidMessageException(argument, "must not be empty");
    }
    if (value.length() > maxLength) {
      throw new InvalidMessageException(
          argument, "must be at most " + maxLength + " characters, was " + value.length());
    }
    String problem = unstorable(value);
    if (problem != null) {
      throw new InvalidMessageException(argument, problem);
    }
  }

  /**
   * Why {@code value} cannot be stored verbatim on every dialect (NUL, a lone UTF-16 surrogate), or
   * null when it can.
   */
  static String unstorable(String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '\0') {
        return "must not contain the NUL character";
      }
      if (Character.isHighSurrogate(c)) {
        if (i + 1 < value.length() && Character.isLowSurrogate(value.charAt(i + 1))) {
          i++;
          continue;
        }
        return "contains a lone UTF-16 surrogate";
      }
      if (Character.isLowSurrogate(c)) {
        return "contains a lone UTF-16 surrogate";
      }
    }
    return null;
  }
}
