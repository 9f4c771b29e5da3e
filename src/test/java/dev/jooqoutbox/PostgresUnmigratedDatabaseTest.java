package dev.jooqoutbox;

import static org.assertj.core.api.Assertions.assertThatCode;

import dev.jooqoutbox.relay.OutboxRelay;
import dev.jooqoutbox.testing.TestDatabase;
import org.jooq.SQLDialect;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

class PostgresUnmigratedDatabaseTest extends UnmigratedDatabaseContract {
  PostgresUnmigratedDatabaseTest() {
    super(TestDatabase.Kind.POSTGRES);
  }

  /**
   * A database not reachable yet (nothing listens on the port) cannot say whether it is migrated:
   * the relay starts and retries, as it does when the database goes away later.
   */
  @Test
  void aRelayStartsOnADatabaseNotReachableYet() {
    PGSimpleDataSource nowhere = new PGSimpleDataSource();
    nowhere.setURL("jdbc:postgresql://127.0.0.1:1/test?connectTimeout=2");
    try (OutboxRelay relay =
        OutboxRelay.builder(nowhere, SQLDialect.POSTGRES)
            .listen(false)
            .handler("orders", m -> {})
            .build()) {
      assertThatCode(relay::start).doesNotThrowAnyException();
    }
  }
}
