package dev.jooqoutbox.relay;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresRelayMetricsAndPurgeTest extends RelayMetricsAndPurgeContract {
  PostgresRelayMetricsAndPurgeTest() {
    super(TestDatabase.Kind.POSTGRES);
  }
}
