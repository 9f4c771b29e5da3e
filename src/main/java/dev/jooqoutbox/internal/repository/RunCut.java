package dev.jooqoutbox.internal.repository;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Cuts claimed runs where one of their messages is missing, so that a run never skips a message: of
 * rows in seq order, each aggregate keeps those before its first missing row, and the present rows
 * after it are cut (the claimer gives them back).
 *
 * @param kept the present rows before their aggregate's first missing row, in seq order
 * @param cut the present rows after it, in seq order
 */
record RunCut<T>(List<T> kept, List<T> cut) {

  static <T> RunCut<T> of(List<T> inSeqOrder, Function<T, String> aggregate, Predicate<T> present) {
    List<T> kept = new ArrayList<>(inSeqOrder.size());
    List<T> cut = new ArrayList<>();
    Set<String> broken = new HashSet<>();
    for (T row : inSeqOrder) {
      String of = aggregate.apply(row);
      if (!present.test(row)) {
        broken.add(of);
      } else if (broken.contains(of)) {
        cut.add(row);
      } else {
        kept.add(row);
      }
    }
    return new RunCut<>(kept, cut);
  }
}
