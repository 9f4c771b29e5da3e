package dev.jooqoutbox;

import java.util.List;
import java.util.Optional;

/**
 * One page of dead letters, oldest first, and the query for the next page when there is one. Pages
 * follow seq (keyset pagination), so a letter requeued or added between two pages neither shifts
 * nor repeats the others.
 */
public record DeadLetterPage(List<DeadLetter> letters, Optional<DeadLetterQuery> next) {

  public DeadLetterPage {
    letters = List.copyOf(letters);
  }

  /** Whether more letters match the query after this page. */
  public boolean hasMore() {
    return next.isPresent();
  }
}
