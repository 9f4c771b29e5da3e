package dev.jooqoutbox.bench;

import java.util.concurrent.atomic.LongAdder;

/**
 * The no-op work gruelbox schedules: public and not final, because gruelbox records a call to it
 * through a generated subclass. It only counts calls, as the no-op handler of our relay does.
 */
public class GruelboxHandler {

  private final LongAdder calls = new LongAdder();

  /** The scheduled method: the same fields as the outbox message's payload. */
  public void orderPlaced(
      String aggregate, long orderId, String customer, String amount, String note) {
    calls.increment();
  }

  long calls() {
    return calls.sum();
  }
}
