package dev.jooqoutbox.faults;

import dev.jooqoutbox.testing.TestDatabase;
import org.junit.jupiter.api.Test;

class PostgresClockSkewTest extends ClockSkewContract {
  PostgresClockSkewTest() {
    super(TestDatabase.Kind.POSTGRES);
  }

  @Test
  void skewedTakeoverWaitsForTheFirstRunsInboxRow() throws Exception {
    skewedTakeoverWaitsForTheFirstRunsInboxRowAndBooksOnce();
  }
}
