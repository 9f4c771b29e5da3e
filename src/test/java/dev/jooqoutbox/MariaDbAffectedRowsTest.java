package dev.jooqoutbox;

import static dev.jooqoutbox.schema.Tables.INBOX_MESSAGE;
import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.jooqoutbox.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.Map;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * MariaDB tells an inserted row from a duplicate by the row count of {@code INSERT ... ON DUPLICATE
 * KEY UPDATE}, which depends on the driver's {@code useAffectedRows}. The contract tests run with
 * the driver's default (found rows); these run the same cases with affected rows.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MariaDbAffectedRowsTest {

  private TestDatabase db;

  @BeforeAll
  void createDatabase() {
    db = TestDatabase.migrated(TestDatabase.Kind.MARIADB);
  }

  @AfterAll
  void dropDatabase() {
    db.close();
  }

  @Test
  void duplicatesAreToldFromInsertsWithAffectedRows() throws Exception {
    String url = db.url() + (db.url().contains("?") ? "&" : "?") + "useAffectedRows=true";
    try (Connection connection = DriverManager.getConnection(url)) {
      DSLContext dsl = DSL.using(connection, db.dialect());
      Outbox outbox = Outbox.builder(dsl).build();
      Inbox inbox = new Inbox();

      dsl.transaction(tx -> outbox.message("a", "t", Map.of("n", 1)).id("m-1").write(tx.dsl()));
      dsl.transaction(tx -> outbox.message("a", "t", Map.of("n", 1)).id("m-1").write(tx.dsl()));
      assertThatThrownBy(
              () ->
                  dsl.transaction(
                      tx -> outbox.message("a", "t", Map.of("n", 2)).id("m-1").write(tx.dsl())))
          .isInstanceOf(DuplicateMessageException.class);
      assertThat(dsl.fetchCount(OUTBOX_MESSAGE)).isEqualTo(1);

      for (boolean copy : new boolean[] {false, true}) {
        boolean seen = dsl.transactionResult(tx -> inbox.seen(tx.dsl(), "billing", "m-1"));
        assertThat(seen).isEqualTo(copy);
      }
      assertThat(inbox.runOnce(dsl, "billing", "m-1", tx -> {})).isFalse();
      assertThat(inbox.runOnce(dsl, "billing", "m-2", tx -> {})).isTrue();
      assertThat(dsl.fetchCount(INBOX_MESSAGE)).isEqualTo(2);
    }
  }
}
