package dev.jooqoutbox;

/**
 * {@code toString} for the types that carry a payload: {@code Name[key=value, ...]} over the fields
 * given, never the payload, so that logging a message or a dead letter cannot leak its content.
 */
final class WithoutPayload {

  private WithoutPayload() {}

  /** {@code type[k1=v1, k2=v2, ...]} from alternating names and values. */
  static String toString(String type, Object... namesAndValues) {
    StringBuilder text = new StringBuilder(type).append('[');
    for (int i = 0; i + 1 < namesAndValues.length; i += 2) {
      if (i > 0) {
        text.append(", ");
      }
      text.append(namesAndValues[i]).append('=').append(namesAndValues[i + 1]);
    }
    return text.append(']').toString();
  }
}
