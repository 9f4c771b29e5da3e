package dev.jooqoutbox.internal.repository;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jooqoutbox.Outbox;
import dev.jooqoutbox.testing.TestDatabase;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jooq.tools.jdbc.SingleConnectionDataSource;
import org.junit.jupiter.api.Test;

/**
 * The MariaDB claim reads in READ COMMITTED, but leaves the connection's own isolation level as it
 * was, whatever pool (or none) the connection comes from.
 */
class MariaDbClaimIsolationTest {

  @Test
  void aClaimLeavesTheConnectionsIsolationLevelAsItWas() throws Exception {
    try (TestDatabase db = TestDatabase.migrated(TestDatabase.Kind.MARIADB);
        Connection connection = db.dataSource().getConnection()) {
      db.dsl().transaction(tx -> Outbox.create(tx.dsl()).write(tx.dsl(), "a", "t", Map.of()));
      connection.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
      DSLContext single = DSL.using(new SingleConnectionDataSource(connection), SQLDialect.MARIADB);

      assertThat(
              new JooqOutboxRepository(single)
                  .claim(Set.of("t"), 10, Duration.ofSeconds(30), "token", Instant.now()))
          .hasSize(1);

      assertThat(connection.getTransactionIsolation())
          .isEqualTo(Connection.TRANSACTION_REPEATABLE_READ);
      assertThat(
              DSL.using(connection, SQLDialect.MARIADB)
                  .fetchValue(
                      "select @@session.tx_isolation")) // the server's word, not the driver's
          .isEqualTo("REPEATABLE-READ");
      assertThat(connection.getAutoCommit()).isTrue();
    }
  }
}
