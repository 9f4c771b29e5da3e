package dev.jooqoutbox.relay;

import dev.jooqoutbox.testing.TestDatabase;

class SqliteRelayMetricsAndPurgeTest extends RelayMetricsAndPurgeContract {
  SqliteRelayMetricsAndPurgeTest() {
    super(TestDatabase.Kind.SQLITE);
  }
}
