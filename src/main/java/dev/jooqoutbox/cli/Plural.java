package dev.jooqoutbox.cli;

import java.util.Locale;

/** "1 dead letter", "2 dead letters", "1,234 dead letters": counts grouped, as the demo prints. */
final class Plural {

  private Plural() {}

  static String of(long count, String noun) {
    return count(count) + " " + noun + (count == 1 ? "" : "s");
  }

  /** {@code count} with its thousands grouped by commas, whatever the JVM's locale. */
  static String count(long count) {
    return String.format(Locale.ROOT, "%,d", count);
  }
}
