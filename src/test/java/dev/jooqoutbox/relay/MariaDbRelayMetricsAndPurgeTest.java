package dev.jooqoutbox.relay;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbRelayMetricsAndPurgeTest extends RelayMetricsAndPurgeContract {
  MariaDbRelayMetricsAndPurgeTest() {
    super(TestDatabase.Kind.MARIADB);
  }
}
