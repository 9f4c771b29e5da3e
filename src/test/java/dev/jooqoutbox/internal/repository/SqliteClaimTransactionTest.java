package dev.jooqoutbox.internal.repository;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.jooqoutbox.Outbox;
import dev.jooqoutbox.OutboxSchema;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jooq.tools.jdbc.SingleConnectionDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SQLite claim's {@code BEGIN IMMEDIATE} always ends its transaction, whatever fails inside it,
 * so a pooled connection never goes back to the pool with a transaction (and the write lock) open.
 */
class SqliteClaimTransactionTest {

  @TempDir Path dir;

  @Test
  void aCommitThatFailsIsRolledBackAndTheConnectionIsUsableAgain() throws Exception {
    // Rollback-journal mode: COMMIT needs an exclusive lock, which a reader's open read
    // transaction denies. (WAL would let it commit.)
    String url = "jdbc:sqlite:" + dir.resolve("claim.db") + "?journal_mode=DELETE&busy_timeout=200";
    try (Connection claimer = DriverManager.getConnection(url);
        Connection reader = DriverManager.getConnection(url)) {
      DSLContext dsl = DSL.using(new SingleConnectionDataSource(claimer), SQLDialect.SQLITE);
      try (Connection migrator = DriverManager.getConnection(url)) {
        OutboxSchema.migrate(new SingleConnectionDataSource(migrator));
      }
      dsl.transaction(tx -> Outbox.create(tx.dsl()).write(tx.dsl(), "a", "t", Map.of("n", 1)));
      JooqOutboxRepository repository = new JooqOutboxRepository(dsl);

      try (Statement read = reader.createStatement()) {
        read.execute("BEGIN");
        read.executeQuery("SELECT count(*) FROM outbox_message").close(); // holds SHARED
        Throwable failure = catchThrowable(() -> claim(repository, "blocked"));
        assertThat(failure)
            .as("the COMMIT cannot get its lock")
            .hasRootCauseInstanceOf(SQLException.class)
            .rootCause()
            .hasMessageContaining("SQLITE_BUSY");
        assertThat(claimer.getAutoCommit()).isTrue();
        read.execute("COMMIT");
      }

      // Nothing of the failed claim stayed: no open transaction, no lease; the next claim works.
      assertThat(dsl.fetchValue(DSL.select(OUTBOX_MESSAGE.CLAIM_TOKEN).from(OUTBOX_MESSAGE)))
          .isNull();
      assertThat(claim(repository, "next")).isOne();
    }
  }

  @Test
  void aRollbackThatFailsNeverHidesTheOriginalError() throws Exception {
    String url = "jdbc:sqlite:" + dir.resolve("rollback.db");
    Connection connection = DriverManager.getConnection(url);
    DSLContext dsl = DSL.using(new SingleConnectionDataSource(connection), SQLDialect.SQLITE);
    IllegalStateException original = new IllegalStateException("the claim failed");

    Throwable thrown =
        catchThrowable(
            () ->
                SqliteDialect.INSTANCE.claimTransaction(
                    dsl,
                    tx -> {
                      closeQuietly(connection); // so the ROLLBACK fails too
                      throw original;
                    }));

    assertThat(thrown).isSameAs(original);
    assertThat(original.getSuppressed()).isNotEmpty();
  }

  private static int claim(JooqOutboxRepository repository, String token) {
    return repository
        .claim(Set.of("t"), 10, Duration.ofSeconds(30), token, Instant.now().plusSeconds(1))
        .size();
  }

  private static void closeQuietly(Connection connection) {
    try {
      connection.close();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
