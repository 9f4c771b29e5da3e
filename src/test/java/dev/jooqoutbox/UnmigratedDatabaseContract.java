package dev.jooqoutbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.jooqoutbox.relay.OutboxRelay;
import dev.jooqoutbox.testing.TestDatabase;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A database the outbox was never migrated in: a write and a relay's start fail at once with an
 * {@link OutboxException} that names the missing table, the outbox, and both ways to migrate,
 * rather than a raw database error on write and a warning logged at every poll by a relay that
 * started.
 */
abstract class UnmigratedDatabaseContract {

  private final TestDatabase.Kind kind;
  private TestDatabase db;

  UnmigratedDatabaseContract(TestDatabase.Kind kind) {
    this.kind = kind;
  }

  @BeforeEach
  void emptyDatabase() {
    db = TestDatabase.empty(kind);
  }

  @AfterEach
  void close() {
    db.close();
  }

  @Test
  void aWriteNamesTheMissingTableAndHowToMigrate() {
    Outbox outbox = Outbox.create(db.dsl());
    assertThatThrownBy(
            () -> db.dsl().transaction(tx -> outbox.write(tx.dsl(), "a", "orders", Map.of())))
        .isInstanceOf(OutboxException.class)
        .hasMessageContaining("the tables of the default outbox are missing")
        .hasMessageContaining("outbox_")
        .hasMessageContaining("OutboxSchema.migrate(dataSource)")
        .hasMessageContaining("db/changelog/jooq-outbox.xml")
        .hasMessageContaining("outbox migrate");
  }

  @Test
  void aRelaysStartNamesTheMissingTableAndStartsNothing() {
    OutboxRelay relay = OutboxRelay.builder(db.dsl()).handler("orders", m -> {}).build();
    try {
      assertThatThrownBy(relay::start)
          .isInstanceOf(OutboxException.class)
          .hasMessageContaining("the tables of the default outbox are missing")
          .hasMessageContaining("no table outbox_message")
          .hasMessageContaining("OutboxSchema.migrate(dataSource)")
          .hasMessageContaining("db/changelog/jooq-outbox.xml");
    } finally {
      relay.close();
    }
  }

  @Test
  void aNamedOutboxNamesItselfAndItsChangelog() {
    db.migrate(); // the default outbox is there, the named one is not
    OutboxName billing = OutboxName.of("billing");
    Outbox outbox = Outbox.builder(db.dsl()).name(billing).build();
    assertThatThrownBy(
            () -> db.dsl().transaction(tx -> outbox.write(tx.dsl(), "a", "orders", Map.of())))
        .isInstanceOf(OutboxException.class)
        .hasMessageContaining("the tables of the outbox billing are missing")
        .hasMessageContaining("OutboxSchema.migrate(dataSource, name)")
        .hasMessageContaining("db/changelog/jooq-outbox-named.xml");
    OutboxRelay relay =
        OutboxRelay.builder(db.dsl()).name(billing).handler("orders", m -> {}).build();
    try {
      assertThatThrownBy(relay::start)
          .isInstanceOf(OutboxException.class)
          .hasMessageContaining("no table " + billing.outboxTable());
    } finally {
      relay.close();
    }
    assertThat(OutboxSchema.isMigrated(db.dsl())).as("the default outbox").isTrue();
  }
}
