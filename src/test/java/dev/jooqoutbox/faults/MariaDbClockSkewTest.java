package dev.jooqoutbox.faults;

import dev.jooqoutbox.testing.TestDatabase;
import org.junit.jupiter.api.Test;

class MariaDbClockSkewTest extends ClockSkewContract {
  MariaDbClockSkewTest() {
    super(TestDatabase.Kind.MARIADB);
  }

  @Test
  void skewedTakeoverWaitsForTheFirstRunsInboxRow() throws Exception {
    skewedTakeoverWaitsForTheFirstRunsInboxRowAndBooksOnce();
  }
}
