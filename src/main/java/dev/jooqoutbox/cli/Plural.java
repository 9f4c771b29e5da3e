package dev.jooqoutbox.cli;

/** "1 dead letter", "2 dead letters". */
final class Plural {

  private Plural() {}

  static String of(long count, String noun) {
    return count + " " + noun + (count == 1 ? "" : "s");
  }
}
