package dev.jooqoutbox.schema;

import static dev.jooqoutbox.schema.Tables.INBOX_MESSAGE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.jooqoutbox.Inbox;
import dev.jooqoutbox.OutboxException;
import dev.jooqoutbox.OutboxSchema;
import dev.jooqoutbox.testing.TestChangelogs;
import dev.jooqoutbox.testing.TestDatabase;
import java.util.List;
import java.util.Map;
import org.jooq.Result;
import org.junit.jupiter.api.Test;

/**
 * The MariaDB side of 004-exact-key-collation: the key columns move from the PAD SPACE {@code
 * utf8mb4_bin} to {@code utf8mb4_nopad_bin} with their indexes, and the rollback moves them back,
 * or refuses, changing nothing, while keys exist that only the exact comparison tells apart.
 */
class MariaDbExactKeyUpgradeTest extends ExactKeyUpgradeContract {

  private static final Map<String, List<String>> KEY_COLUMNS =
      Map.of(
          "outbox_message", List.of("aggregate", "claim_token", "id", "topic"),
          "inbox_message", List.of("consumer", "message_id"));

  MariaDbExactKeyUpgradeTest() {
    super(TestDatabase.Kind.MARIADB);
  }

  @Override
  void assertKeysCompareExactly() {
    assertCollation("utf8mb4_nopad_bin");
    super.assertKeysCompareExactly();
  }

  @Test
  void releasedSchemaPadsKeysAndTheUpgradedOneDoesNot() throws Exception {
    TestChangelogs.update(db.dataSource(), RELEASED_CHANGELOG);
    assertCollation("utf8mb4_bin");
    List<Map<String, Object>> indexesBefore = indexes();
    assertThat(padEqual()).as("'m-5' = 'm-5 ' under the released schema").isTrue();

    OutboxSchema.migrate(db.dataSource());

    assertThat(padEqual()).as("'m-5' = 'm-5 ' under the upgraded schema").isFalse();
    assertThat(indexes()).as("indexes, columns and uniqueness").isEqualTo(indexesBefore);
  }

  @Test
  void rollbackRestoresThePadCollationAndKeepsEveryRow() {
    OutboxSchema.migrate(db.dataSource());
    writeRowsTheOldSchemaAllows();
    Result<?> outbox = outboxRows();
    Result<?> inbox = inboxRows();

    OutboxSchema.rollback(db.dataSource(), 4); // 008, 007, 005, then 004

    assertThat(appliedChangesets()).hasSize(3).doesNotContain("004-exact-key-collation-mariadb");
    assertCollation("utf8mb4_bin");
    assertThat(outboxRows()).isEqualTo(outbox);
    assertThat(inboxRows()).isEqualTo(inbox);

    OutboxSchema.migrate(db.dataSource());
    assertCollation("utf8mb4_nopad_bin");
    assertThat(outboxRows()).isEqualTo(outbox);
  }

  @Test
  void rollbackRefusesWhileKeysOnlyTheExactComparisonTellsApartExist() {
    OutboxSchema.migrate(db.dataSource());
    OutboxSchema.rollback(db.dataSource(), 3); // 008, 007 and 005, so that 004 is the next
    Inbox inbox = new Inbox();
    for (String id : List.of("m-5", "m-5 ")) {
      assertThat(seen(inbox, "ledger", id)).isFalse();
    }

    assertThatThrownBy(() -> OutboxSchema.rollback(db.dataSource(), 1))
        .isInstanceOf(OutboxException.class)
        .hasMessageContaining("cannot roll back 004-exact-key-collation");

    assertThat(appliedChangesets()).contains("004-exact-key-collation-mariadb");
    assertCollation("utf8mb4_nopad_bin");
    assertThat(dsl.fetchValues(INBOX_MESSAGE.MESSAGE_ID)).containsExactlyInAnyOrder("m-5", "m-5 ");

    // With one of the pair gone, the rollback goes through.
    dsl.deleteFrom(INBOX_MESSAGE).where(INBOX_MESSAGE.MESSAGE_ID.eq("m-5 ")).execute();
    OutboxSchema.rollback(db.dataSource(), 1);
    assertCollation("utf8mb4_bin");
  }

  private void assertCollation(String collation) {
    KEY_COLUMNS.forEach(
        (tableName, columns) -> {
          var live =
              dsl.fetch(
                  "select column_name, collation_name from information_schema.columns"
                      + " where table_schema = database() and table_name = ? and column_name in"
                      + " ('aggregate', 'claim_token', 'id', 'topic', 'consumer', 'message_id')"
                      + " order by column_name",
                  tableName);
          assertThat(live.getValues(0, String.class)).isEqualTo(columns);
          assertThat(live.getValues(1, String.class))
              .as("collations of %s", tableName)
              .containsOnly(collation);
          assertThat(
                  dsl.fetchValue(
                      "select table_collation from information_schema.tables"
                          + " where table_schema = database() and table_name = ?",
                      tableName))
              .as("default collation of %s", tableName)
              .isEqualTo(collation);
        });
  }

  /** Whether the inbox's key column takes 'm-5' and 'm-5 ' for the same value. */
  private boolean padEqual() {
    dsl.deleteFrom(INBOX_MESSAGE).execute();
    dsl.insertInto(INBOX_MESSAGE)
        .set(INBOX_MESSAGE.CONSUMER, "probe")
        .set(INBOX_MESSAGE.MESSAGE_ID, "m-5")
        .set(INBOX_MESSAGE.SEEN_AT, T)
        .execute();
    boolean equal = dsl.fetchCount(INBOX_MESSAGE, INBOX_MESSAGE.MESSAGE_ID.eq("m-5 ")) == 1;
    dsl.deleteFrom(INBOX_MESSAGE).execute();
    return equal;
  }

  /** Every index of the two tables: name, uniqueness, and its columns in order. */
  private List<Map<String, Object>> indexes() {
    return dsl.fetch(
            "select table_name, index_name, non_unique, seq_in_index, column_name"
                + " from information_schema.statistics where table_schema = database()"
                + " and table_name in ('outbox_message', 'inbox_message')"
                // Added by 005 (outcome unknown), not by the collation change.
                + " and index_name <> 'ix_outbox_message_unknown'"
                + " order by table_name, index_name, seq_in_index")
        .intoMaps();
  }
}
